package dev.lockstep.platform.audit.evidence;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lockstep.platform.audit.AuditEntry;
import dev.lockstep.platform.audit.AuditEntryFormat;
import dev.lockstep.platform.audit.AuditRecord;
import dev.lockstep.platform.audit.AuditTrail;
import dev.lockstep.support.Api;
import dev.lockstep.support.LockstepIntegrationTest;
import dev.lockstep.support.TestDatabases;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;
import java.util.zip.ZipFile;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import tools.jackson.databind.JsonNode;

/**
 * Exports through real HTTP from the shared context, verified offline: an intact chain verifies (exit 0), the
 * API's refusals are problem+json with stable codes, only AUDITOR and ADMIN reach it. Nothing here alters the chain
 * (AuditTamperTest does, in databases of its own).
 */
@LockstepIntegrationTest
class AuditExportTest {

    private static final Path BUNDLES = Path.of("target/audit-bundles");

    @Autowired
    Api api;

    @Autowired
    TestDatabases databases;

    @Autowired
    AuditTrail trail;

    @Autowired
    SigningKey key;

    @Autowired
    AnchorFile anchor;

    @Test
    void anIntactTimeRangeExportVerifiesOfflineAndTheCheckpointItTookIsInTheTableAndTheAnchorFile() throws IOException {
        Instant from = Instant.now().minusSeconds(1);
        for (int i = 0; i < 5; i++) {
            trail.append("dba1", "FORCED_COMMIT", "gtrid-range-" + i, "intact range " + i);
        }
        Instant to = Instant.now().plusSeconds(1);
        Path bundle = Evidence.export(api, "from=" + from + "&to=" + to, BUNDLES);

        Evidence.Verified verified = Evidence.verify(bundle, "--key", key.publicKey());
        assertThat(verified.exitCode()).as(verified.output()).isZero();
        assertThat(verified.output()).contains("RESULT INTACT", "CHECK  file hashes", "CHECK  coverage");

        JsonNode manifest = manifest(bundle);
        long head = manifest.path("chain_head").path("seq").asLong();
        assertThat(databases.business().queryForObject("select max(seq) from recovery_audit", Long.class)).isGreaterThanOrEqualTo(head);
        assertThat(databases.business().queryForObject("select count(*) from audit_checkpoint where entries = ? and head_hash = ?",
                Integer.class, head, manifest.path("chain_head").path("hash").asString())).isPositive();
        assertThat(databases.business().queryForObject("select id from audit_installation", String.class))
                .isEqualTo(manifest.path("installation_id").asString());
        assertThat(read(bundle, BundleFormat.CHECKPOINTS)).contains("\"source\":\"anchor-file\"", "\"source\":\"table\"");
        assertThat(manifest.path("counts").path("full_entries").asLong()).isGreaterThanOrEqualTo(5);
    }

    @Test
    void anApplicationsExportShowsItsEntriesInFullAndOthersOnlyAsLinksAndItsTimelinePage() throws IOException {
        long application = ThreadLocalRandom.current().nextLong(1_000_000_000L, 2_000_000_000L);
        trail.append(decision(application, "alice", "APPLICANT", "APPLICATION_SUBMITTED", "submitted for approval"));
        trail.append(decision(application + 1, "zoe", "APPLICANT", "APPLICATION_SUBMITTED", "another application's secret"));
        AuditEntry approved = trail.append(decision(application, "bob", "APPROVER,managers", "TASK_APPROVED",
                "managerApproval: approved <with care>"));

        Path bundle = Evidence.export(api, "applicationId=" + application, BUNDLES);
        Evidence.Verified verified = Evidence.verify(bundle);

        assertThat(verified.exitCode()).as(verified.output()).isZero();
        assertThat(verified.output()).contains("no --key given", Checkpoint.fingerprint(key.publicKey()));
        String entries = read(bundle, BundleFormat.ENTRIES);
        assertThat(entries).doesNotContain("another application's secret").contains("\"kind\":\"link\"");
        assertThat(entries.lines().filter(line -> line.contains("\"kind\":\"entry\""))).hasSize(2);
        String page = read(bundle, BundleFormat.APPLICATIONS + application + ".html");
        assertThat(page).contains("TASK_APPROVED", "APPROVER,managers", "managerApproval: approved &lt;with care&gt;",
                approved.gtrid(), approved.requestId(), "APPLICATION v3").doesNotContain("another application");
        assertThat(manifest(bundle).path("query").path("application_id").asLong()).isEqualTo(application);
        // the export itself is on the trail: who took which evidence away
        assertThat(databases.business().queryForList("select actor from recovery_audit where action = 'AUDIT_EXPORTED'"
                + " and detail like ?", String.class, "%\"application_id\":" + application + "%")).containsExactly("audrey");
    }

    @Test
    void aRangeWithoutEntriesIsAnEmptyBundleThatStillCarriesTheNewestCheckpoints() throws IOException {
        Path bundle = Evidence.export(api, "from=2000-01-01T00:00:00Z&to=2000-04-01T00:00:00Z", BUNDLES);

        Evidence.Verified verified = Evidence.verify(bundle, "--key", key.publicKey());

        assertThat(verified.exitCode()).as(verified.output()).isZero();
        assertThat(verified.output()).contains("CHECK  coverage: no entry selected");
        assertThat(manifest(bundle).path("counts").path("entries").asLong()).isZero();
        assertThat(read(bundle, BundleFormat.CHECKPOINTS).lines()).extracting(line -> BundleFormat.JSON.readTree(line)
                .path("source").asString()).contains("table", "anchor-file");
    }

    @Test
    void aCheckpointOnDemandIsSignedStoredAndAnchored() throws IOException {
        trail.append("dba1", "FORCED_ROLLBACK", null, "on demand");
        Api.Response taken = api.post("erin", "/api/audit/checkpoints", null);

        assertThat(taken.status()).as(taken.toString()).isEqualTo(201);
        long entries = taken.json().path("entries").asLong();
        String head = taken.json().path("headHash").asString();
        assertThat(databases.business().queryForObject("select hash from recovery_audit where seq = ?", String.class, entries))
                .isEqualTo(head);
        Map<String, Object> row = databases.business().queryForMap(
                "select signature, public_key from audit_checkpoint where entries = ? and head_hash = ? order by id desc limit 1",
                entries, head);
        assertThat(row.get("public_key")).isEqualTo(key.publicKey());
        assertThat(row.get("signature")).isEqualTo(taken.json().path("signature").asString());
        assertThat(Files.readString(anchor.file())).contains(taken.json().path("signature").asString());
    }

    @Test
    void badQueriesAreProblemsWithStableCodes() {
        Map<String, String> codes = Map.of(
                "", "AUDIT_EXPORT_FILTER",
                "?applicationId=1&from=2026-01-01T00:00:00Z&to=2026-02-01T00:00:00Z", "AUDIT_EXPORT_FILTER",
                "?from=2026-01-01T00:00:00Z", "AUDIT_EXPORT_FILTER",
                "?from=yesterday&to=2026-02-01T00:00:00Z", "AUDIT_EXPORT_INSTANT",
                "?from=2026-02-01T00:00:00Z&to=2026-01-01T00:00:00Z", "AUDIT_EXPORT_RANGE",
                "?applicationId=abc", "AUDIT_EXPORT_APPLICATION_ID");
        codes.forEach((query, code) -> {
            Evidence.Download refused = Evidence.get(api, "audrey", "/api/audit/exports" + query);
            assertThat(refused.status()).as(query + ": " + refused.text()).isEqualTo(400);
            assertThat(refused.contentType()).startsWith("application/problem+json");
            assertThat(refused.text()).contains("\"code\":\"" + code + "\"");
        });
        Evidence.Download unknown = Evidence.get(api, "audrey", "/api/audit/exports?applicationId=" + Long.MAX_VALUE);
        assertThat(unknown.status()).as(unknown.text()).isEqualTo(404);
        assertThat(unknown.text()).contains("\"code\":\"AUDIT_APPLICATION_UNKNOWN\"");
    }

    @Test
    void onlyAuditorsAndAdminsReachTheEvidence() {
        String range = "/api/audit/exports?from=2026-01-01T00:00:00Z&to=2099-01-01T00:00:00Z";
        for (String user : List.of("alice", "bob", "dba1")) {
            assertThat(Evidence.get(api, user, range).status()).as(user).isEqualTo(403);
            assertThat(api.post(user, "/api/audit/checkpoints", null).status()).as(user).isEqualTo(403);
        }
        assertThat(Evidence.get(api, "erin", range).status()).isEqualTo(200);
    }

    @Test
    void aBundleFromAnotherInstallationDoesNotVerifyAgainstThisInstallationsKey() throws IOException {
        // another installation's genuine bundle: its own key and id, written by the same bundle writer
        Path otherKeyFile = BUNDLES.resolve("other-installation-" + System.nanoTime() + ".pem");
        SigningKey otherKey = SigningKey.loadOrGenerate(otherKeyFile);
        AuditEntry only = new AuditEntry(1, 1, Instant.now().truncatedTo(ChronoUnit.MICROS), null, "dba1", null, "FORCED_COMMIT",
                null, null, null, null, "g", "elsewhere", AuditEntryFormat.GENESIS, null);
        AuditEntry hashed = new AuditEntry(1, 1, only.at(), null, "dba1", null, "FORCED_COMMIT", null, null, null, null, "g",
                "elsewhere", only.prevHash(), only.recomputedHash());
        Checkpoint signed = otherKey.sign("other-installation", 1, hashed.hash(), only.at(), "other-node.tm");
        ByteArrayOutputStream zip = new ByteArrayOutputStream();
        BundleWriter writer = new BundleWriter(zip);
        writer.entry(hashed, true);
        writer.checkpoint(signed, BundleFormat.FROM_TABLE);
        writer.finish("other-installation", Instant.now(), "someone", BundleFormat.JSON.createObjectNode(), 1, hashed.hash());
        Path bundle = Files.write(BUNDLES.resolve("other-installation-" + System.nanoTime() + ".zip"), zip.toByteArray());

        assertThat(Evidence.verify(bundle).exitCode()).as("genuine for its own installation").isZero();
        Evidence.Verified pinned = Evidence.verify(bundle, "--key", key.publicKey());
        assertThat(pinned.exitCode()).as(pinned.output()).isEqualTo(1);
        assertThat(pinned.output()).contains("not pinned with --key", "covered by no counted checkpoint");
    }

    private static AuditRecord decision(long application, String actor, String roles, String action, String detail) {
        String request = UUID.randomUUID().toString();
        return new AuditRecord(actor, roles, action, application, 1, "APPLICATION v3", request, "lockstep-it.tm" + request, detail);
    }

    static JsonNode manifest(Path bundle) throws IOException {
        return BundleFormat.JSON.readTree(read(bundle, BundleFormat.MANIFEST));
    }

    static String read(Path bundle, String name) throws IOException {
        try (ZipFile zip = new ZipFile(bundle.toFile())) {
            return new String(zip.getInputStream(zip.getEntry(name)).readAllBytes(), StandardCharsets.UTF_8);
        }
    }
}
