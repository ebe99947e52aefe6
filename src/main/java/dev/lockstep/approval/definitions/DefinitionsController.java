package dev.lockstep.approval.definitions;

import dev.lockstep.approval.definitions.DefinitionRegistry.DeclarativeSource;
import dev.lockstep.approval.definitions.DefinitionRegistry.UploadedSource;
import dev.lockstep.approval.definitions.DefinitionsConfiguration.DefinitionLimits;
import dev.lockstep.platform.security.Caller;
import dev.lockstep.platform.web.ApiException;
import dev.lockstep.transactions.usecase.Target;
import dev.lockstep.transactions.usecase.UseCase;
import dev.lockstep.transactions.usecase.UseCaseResult;
import dev.lockstep.transactions.usecase.UseCaseTransaction;
import dev.lockstep.transactions.workflow.definition.DeclarativeFlows.Format;
import dev.lockstep.transactions.workflow.definition.FlowDiagram;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.validation.Valid;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;
import java.util.function.Supplier;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestHeader;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;
import tools.jackson.databind.json.JsonMapper;

/**
 * Business types and their approval definitions (docs/approvals.md, "Business types, versions and four-eyes
 * activation"). Admins register, propose and decide; admins and auditors read (SecurityConfiguration).
 */
@RestController
@RequestMapping(path = "/api/business-types", produces = "application/json")
public class DefinitionsController {

    private static final MediaType SVG = MediaType.parseMediaType("image/svg+xml");

    /** How much of an oversized upload is read and dropped so the client gets the 413 instead of a reset connection. */
    private static final long DRAIN_LIMIT = 64L * 1024 * 1024;

    private final DefinitionRegistry registry;
    private final UseCaseTransaction useCases;
    private final DefinitionLimits limits;
    private final JsonMapper json;

    DefinitionsController(DefinitionRegistry registry, UseCaseTransaction useCases, DefinitionLimits limits, JsonMapper json) {
        this.registry = registry;
        this.useCases = useCases;
        this.limits = limits;
        this.json = json;
    }

    @PostMapping(consumes = "application/json")
    public ResponseEntity<String> register(@Valid @RequestBody RegisterBusinessTypeRequest request,
            @RequestHeader(name = UseCaseTransaction.HEADER, required = false) String idempotencyKey) {
        ResponseEntity<String> answer = useCases.run(UseCase.REGISTER_BUSINESS_TYPE, new Target("BUSINESS_TYPE", request.key()),
                idempotencyKey, request, call -> UseCaseResult.created(registry.register(request, call.caller().id()),
                        request.key(), "REGISTERED"));
        return withLocation(answer, "/api/business-types/" + request.key());
    }

    @GetMapping
    public List<BusinessTypeView> types() {
        return registry.types();
    }

    @GetMapping("/{key}")
    public BusinessTypeView type(@PathVariable String key) {
        return registry.type(key).orElseThrow(() -> ApiException.notFound("BUSINESS_TYPE_NOT_FOUND",
                "There is no business type " + key + "."));
    }

    /** The body is the BPMN 2.0 XML, read only up to the configured limit. */
    @PostMapping(path = "/{key}/definitions", consumes = {"application/xml", "text/xml"})
    public ResponseEntity<String> propose(@PathVariable String key, HttpServletRequest request,
            @RequestHeader(name = UseCaseTransaction.HEADER, required = false) String idempotencyKey) throws IOException {
        return propose(key, boundedBody(request), idempotencyKey, registry::propose);
    }

    /**
     * The body is a declarative flow (docs/approvals.md, "Declarative flows"), JSON or YAML, read only up to the
     * configured limit; it is compiled to BPMN, which is then checked and stored like an uploaded one.
     */
    @PostMapping(path = "/{key}/definitions", consumes = {"application/json", "application/yaml", "application/x-yaml"})
    public ResponseEntity<String> proposeDeclarative(@PathVariable String key, HttpServletRequest request,
            @RequestHeader(name = UseCaseTransaction.HEADER, required = false) String idempotencyKey) throws IOException {
        MediaType type = MediaType.parseMediaType(request.getContentType());
        Format format = MediaType.APPLICATION_JSON.isCompatibleWith(type) ? Format.JSON : Format.YAML;
        return propose(key, boundedBody(request), idempotencyKey, (typeKey, document, actor) ->
                registry.propose(typeKey, new DeclarativeSource(document, format), actor));
    }

    private interface Proposal {
        DefinitionVersionView propose(String key, byte[] document, String actor);
    }

    private ResponseEntity<String> propose(String key, byte[] document, String idempotencyKey, Proposal proposal) {
        ResponseEntity<String> answer = useCases.run(UseCase.PROPOSE_DEFINITION, new Target("BUSINESS_TYPE", key), idempotencyKey,
                new Upload(key, sha256(document)), call -> {
                    DefinitionVersionView proposed = proposal.propose(key, document, call.caller().id());
                    return UseCaseResult.created(proposed, key + "/" + proposed.version(), "PROPOSED");
                });
        return answer.getStatusCode() == HttpStatus.CREATED
                ? withLocation(answer, "/api/business-types/" + key + "/definitions/" + versionOf(answer)) : answer;
    }

    @GetMapping("/{key}/definitions")
    public List<DefinitionVersionView> versions(@PathVariable String key) {
        type(key);
        return registry.versions(key);
    }

    @GetMapping("/{key}/definitions/{version}")
    public DefinitionVersionView version(@PathVariable String key, @PathVariable int version) {
        return registry.version(key, version).orElseThrow(() -> versionNotFound(key, version));
    }

    /** The XML the engine runs (or will run) for this version. */
    @GetMapping(path = "/{key}/definitions/{version}/bpmn", produces = "application/xml")
    public ResponseEntity<String> bpmn(@PathVariable String key, @PathVariable int version) {
        String xml = registry.deployableXml(key, version).orElseThrow(() -> versionNotFound(key, version));
        return ResponseEntity.ok().contentType(MediaType.APPLICATION_XML).body(xml);
    }

    /**
     * A picture of the flow, drawn on the server from the BPMN the engine runs, so that a person sees what they approve.
     * The SVG is served with a policy that lets it run nothing and load nothing, should it be opened on its own.
     */
    @GetMapping(path = "/{key}/definitions/{version}/diagram", produces = "image/svg+xml")
    public ResponseEntity<String> diagram(@PathVariable String key, @PathVariable int version) {
        String xml = registry.deployableXml(key, version).orElseThrow(() -> versionNotFound(key, version));
        return ResponseEntity.ok().contentType(SVG).header("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'")
                .body(FlowDiagram.svg(xml));
    }

    /** The document as it was uploaded: a declarative flow in its own media type, or the BPMN XML. */
    @GetMapping(path = "/{key}/definitions/{version}/source", produces = {"application/xml", "application/json", "application/yaml"})
    public ResponseEntity<String> source(@PathVariable String key, @PathVariable int version) {
        UploadedSource source = registry.uploadedSource(key, version).orElseThrow(() -> versionNotFound(key, version));
        return ResponseEntity.ok().contentType(MediaType.parseMediaType(source.mediaType())).body(source.text());
    }

    /** The second admin approves the open proposal: the version is deployed if it never was, and becomes ACTIVE. */
    @PostMapping("/{key}/definitions/{version}/approve")
    public ResponseEntity<String> approve(@PathVariable String key, @PathVariable int version,
            @RequestHeader(name = UseCaseTransaction.HEADER, required = false) String idempotencyKey) {
        return decide(key, version, idempotencyKey, "APPROVE",
                () -> registry.approve(key, version, Caller.current().id()));
    }

    @PostMapping("/{key}/definitions/{version}/reject")
    public ResponseEntity<String> reject(@PathVariable String key, @PathVariable int version,
            @RequestHeader(name = UseCaseTransaction.HEADER, required = false) String idempotencyKey) {
        return decide(key, version, idempotencyKey, "REJECT",
                () -> registry.reject(key, version, Caller.current().id()));
    }

    /** Proposes a RETIRED version for activation again; another admin approves it through {@code approve}. */
    @PostMapping("/{key}/definitions/{version}/activation")
    public ResponseEntity<String> proposeActivation(@PathVariable String key, @PathVariable int version,
            @RequestHeader(name = UseCaseTransaction.HEADER, required = false) String idempotencyKey) {
        return useCases.run(UseCase.PROPOSE_DEFINITION, new Target("BUSINESS_TYPE", key), idempotencyKey,
                new Decision(key, version, "REACTIVATE"),
                call -> UseCaseResult.ok(registry.proposeActivation(key, version, call.caller().id()), null, "PROPOSED"));
    }

    private ResponseEntity<String> decide(String key, int version, String idempotencyKey, String decision,
            Supplier<DefinitionVersionView> work) {
        return useCases.run(UseCase.DECIDE_DEFINITION, new Target("BUSINESS_TYPE", key), idempotencyKey,
                new Decision(key, version, decision), call -> UseCaseResult.ok(work.get(), null, decision + "D"));
    }

    /** What identifies a decision request for an Idempotency-Key replay. */
    private record Decision(String key, int version, String decision) {
    }

    /** What identifies an upload for an Idempotency-Key replay: the type and the document's digest. */
    private record Upload(String key, String sha256) {
    }

    /**
     * Reads at most the configured number of bytes; a larger body is refused with 413 without keeping it. The rest
     * is read and dropped (up to {@link #DRAIN_LIMIT}) so the client, still sending, receives the answer.
     */
    private byte[] boundedBody(HttpServletRequest request) throws IOException {
        int max = limits.maxBytes();
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        byte[] buffer = new byte[8192];
        long total = 0;
        try (InputStream in = request.getInputStream()) {
            int n;
            while ((n = in.read(buffer)) != -1) {
                total += n;
                if (total > max) {
                    if (total < DRAIN_LIMIT) {
                        continue;
                    }
                    break;
                }
                body.write(buffer, 0, n);
            }
        }
        if (total > max) {
            throw new ApiException(HttpStatus.CONTENT_TOO_LARGE, "DEFINITION_TOO_LARGE", "The definition is larger than "
                    + max + " bytes (lockstep.definitions.max-bytes); nothing was stored.").with("maxBytes", max);
        }
        return body.toByteArray();
    }

    private static ResponseEntity<String> withLocation(ResponseEntity<String> answer, String path) {
        return ResponseEntity.status(answer.getStatusCode()).headers(answer.getHeaders()).location(URI.create(path))
                .body(answer.getBody());
    }

    /** The version number in the answer: the stored body when the upload is replayed under its Idempotency-Key. */
    private int versionOf(ResponseEntity<String> answer) {
        return json.readTree(answer.getBody()).get("version").asInt();
    }

    private static String sha256(byte[] bytes) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    private static ApiException versionNotFound(String key, int version) {
        return ApiException.notFound("DEFINITION_VERSION_NOT_FOUND", key + " has no definition version " + version + ".");
    }
}
