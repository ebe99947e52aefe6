package dev.lockstep.approval.application;

import dev.lockstep.approval.Application;
import dev.lockstep.approval.RiskLevel;
import dev.lockstep.transactions.workflow.Countersign;
import jakarta.validation.Valid;
import jakarta.validation.constraints.DecimalMin;
import jakarta.validation.constraints.Digits;
import jakarta.validation.constraints.NotBlank;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Pattern;
import jakarta.validation.constraints.Positive;
import jakarta.validation.constraints.Size;
import jakarta.validation.groups.ConvertGroup;
import jakarta.validation.groups.Default;
import java.math.BigDecimal;
import java.util.List;
import org.hibernate.validator.spi.group.DefaultGroupSequenceProvider;
import org.hibernate.validator.group.GroupSequenceProvider;
import tools.jackson.databind.JsonNode;

/**
 * {@code type}: the registered business type, APPLICATION when absent; {@code fields}: a registered type's fields,
 * checked against its JSON Schema. The asset fields are required for APPLICATION only, and are checked together
 * with the rest in one group, so an APPLICATION request is answered exactly as before types existed.
 * {@code countersign}: optional; when present the application runs the countersign process instead of the standard chain.
 * {@code signers}: a registered type's countersign signers, named exactly when its definition has a countersign step,
 * whose policy the definition sets.
 */
@GroupSequenceProvider(CreateApplicationRequest.AssetFieldsForApplication.class)
public record CreateApplicationRequest(
        @NotBlank(groups = {Default.class, AssetPublication.class}) @Size(max = 200, groups = {Default.class, AssetPublication.class}) String title,
        @Size(max = 4000, groups = {Default.class, AssetPublication.class}) String description,
        @NotNull(groups = AssetPublication.class) @Positive(groups = AssetPublication.class) Long assetId,
        @NotNull(groups = AssetPublication.class) @DecimalMin(value = "0.00", groups = AssetPublication.class)
        @Digits(integer = 17, fraction = 2, groups = AssetPublication.class) BigDecimal amount,
        @NotNull(groups = AssetPublication.class) RiskLevel riskLevel,
        @NotNull(groups = AssetPublication.class) Boolean sensitive,
        @Valid @ConvertGroup(from = AssetPublication.class, to = Default.class) Countersign countersign,
        @Size(max = 40, groups = {Default.class, AssetPublication.class}) String type,
        JsonNode fields,
        @Size(max = 20, groups = {Default.class, AssetPublication.class})
        List<@NotBlank(groups = {Default.class, AssetPublication.class}) @Size(max = 64, groups = {Default.class, AssetPublication.class})
                @Pattern(regexp = "[^,]+", groups = {Default.class, AssetPublication.class}) String> signers) {

    public CreateApplicationRequest {
        signers = signers == null ? List.of() : signers;
    }

    /** The type this request creates an application of. */
    public String businessType() {
        return type == null ? Application.BUSINESS_TYPE : type;
    }

    /** The constraints of an APPLICATION request (the built-in asset publication). */
    public interface AssetPublication {
    }

    /** APPLICATION requests are checked in {@link AssetPublication} first (every constraint at once), other types in Default. */
    public static final class AssetFieldsForApplication implements DefaultGroupSequenceProvider<CreateApplicationRequest> {

        @Override
        public List<Class<?>> getValidationGroups(Class<?> klass, CreateApplicationRequest request) {
            if (request == null || Application.BUSINESS_TYPE.equals(request.businessType())) {
                return List.of(AssetPublication.class, CreateApplicationRequest.class);
            }
            return List.of(CreateApplicationRequest.class);
        }
    }
}
