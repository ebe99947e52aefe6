package dev.lockstep.architecture;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

/**
 * The package rules docs/architecture.md describes, checked on the compiled service: packages free of
 * cycles, the platform and web below every feature, HTTP clients only in the delivery package that no
 * use case depends on.
 */
class ArchitectureTest {

    /** Packages that hold use cases or their parts; the platform, web, security and operations sit below them. */
    private static final String[] FEATURES = {"dev.lockstep.approval..", "dev.lockstep.todo..", "dev.lockstep.workflow..",
            "dev.lockstep.recovery..", "dev.lockstep.usecase..", "dev.lockstep.singledb..", "dev.lockstep.publish..",
            "dev.lockstep.catalog..", "dev.lockstep.reconciliation..", "dev.lockstep.delivery..", "dev.lockstep.archive..",
            "dev.lockstep.archival.."};

    private static final JavaClasses SERVICE = new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages("dev.lockstep");

    @Test
    void topLevelPackagesHaveNoCycles() {
        slices().matching("dev.lockstep.(*)..").should().beFreeOfCycles().check(SERVICE);
    }

    @Test
    void approvalFeaturesHaveNoCycles() {
        slices().matching("dev.lockstep.approval.(*)..").should().beFreeOfCycles().check(SERVICE);
    }

    @Test
    void thePlatformDependsOnNoOtherPartOfTheService() {
        noClasses().that().resideInAPackage("dev.lockstep.platform..")
                .should().dependOnClassesThat().resideOutsideOfPackages("dev.lockstep.platform..", "java..", "javax..", "jakarta..",
                        "org..", "com..", "io..", "tools..")
                .check(SERVICE);
    }

    @Test
    void webAndPlatformSitBelowTheFeatures() {
        noClasses().that().resideInAnyPackage("dev.lockstep.web..", "dev.lockstep.platform..")
                .should().dependOnClassesThat().resideInAnyPackage(FEATURES)
                .orShould().dependOnClassesThat().resideInAnyPackage("dev.lockstep.xa..")
                .check(SERVICE);
    }

    @Test
    void theAggregateDoesNotDependOnItsFeatures() {
        noClasses().that().resideInAPackage("dev.lockstep.approval")
                .should().dependOnClassesThat().resideInAnyPackage("dev.lockstep.approval.*..")
                .check(SERVICE);
    }

    /** No remote call inside an XA transaction: only the delivery package talks HTTP, and no use case reaches it. */
    @Test
    void onlyTheDeliveryPackageMakesHttpCalls() {
        noClasses().that().resideOutsideOfPackage("dev.lockstep.delivery..")
                .should().dependOnClassesThat().resideInAnyPackage("java.net.http..", "org.springframework.web.client..",
                        "org.springframework.web.reactive.function.client..", "org.apache.hc..", "okhttp3..")
                .orShould().dependOnClassesThat().haveFullyQualifiedName("java.net.HttpURLConnection")
                .check(SERVICE);
    }

    @Test
    void noUseCaseDependsOnTheDeliveryPackage() {
        noClasses().that().resideInAnyPackage("dev.lockstep.approval..", "dev.lockstep.usecase..", "dev.lockstep.workflow..",
                        "dev.lockstep.todo..", "dev.lockstep.recovery..")
                .should().dependOnClassesThat().resideInAPackage("dev.lockstep.delivery..")
                .check(SERVICE);
    }
}
