package dev.lockstep.platform.audit.evidence;

import dev.lockstep.platform.ConditionalOnXaMode;
import dev.lockstep.platform.audit.AuditRecord;
import dev.lockstep.platform.audit.AuditTrail;
import dev.lockstep.platform.security.Caller;
import java.time.Instant;
import org.springframework.http.ContentDisposition;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.servlet.mvc.method.annotation.StreamingResponseBody;

/** Evidence for auditors: checkpoints on demand and export bundles. AUDITOR and ADMIN (the security configuration). */
@RestController
@ConditionalOnXaMode
@RequestMapping("/api/audit")
class AuditEvidenceController {

    private final AuditCheckpoints checkpoints;
    private final AuditExports exports;
    private final AuditTrail trail;

    AuditEvidenceController(AuditCheckpoints checkpoints, AuditExports exports, AuditTrail trail) {
        this.checkpoints = checkpoints;
        this.exports = exports;
        this.trail = trail;
    }

    record CheckpointView(String installationId, long entries, String headHash, Instant at, String signedBy, String publicKey,
            String fingerprint, String signature) {
    }

    @PostMapping(path = "/checkpoints", produces = MediaType.APPLICATION_JSON_VALUE)
    ResponseEntity<CheckpointView> checkpoint() {
        Checkpoint taken = checkpoints.take();
        return ResponseEntity.status(HttpStatus.CREATED).body(new CheckpointView(taken.installationId(), taken.entries(),
                taken.headHash(), taken.at(), taken.signedBy(), taken.publicKey(), Checkpoint.fingerprint(taken.publicKey()),
                taken.signature()));
    }

    /** Query parameters as text: a malformed one is refused with the export's own codes, not a generic type error. */
    @GetMapping("/exports")
    ResponseEntity<StreamingResponseBody> export(@RequestParam(required = false) String applicationId,
            @RequestParam(required = false) String from, @RequestParam(required = false) String to) {
        ExportQuery query = ExportQuery.of(applicationId, from, to);
        AuditExports.Plan plan = exports.plan(query, Caller.current().id());
        // who took which evidence away is itself evidence; the next checkpoint covers this entry
        trail.append(AuditRecord.control(plan.exportedBy(), "AUDIT_EXPORTED", null, "evidence export " + query.json()
                + (plan.firstSeq() == null ? ", no entry selected" : ", entries " + plan.firstSeq() + ".." + plan.lastSeq())
                + " under the checkpoint of " + plan.head().entries() + " entries"));
        String name = "lockstep-audit-" + (applicationId != null ? "application-" + applicationId : "range") + "-"
                + plan.head().entries() + ".zip";
        return ResponseEntity.ok().contentType(MediaType.parseMediaType("application/zip"))
                .header(HttpHeaders.CONTENT_DISPOSITION, ContentDisposition.attachment().filename(name).build().toString())
                .body(out -> exports.write(plan, out));
    }
}
