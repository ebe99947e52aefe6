package dev.lockstep.platform.audit.evidence;

import dev.lockstep.platform.audit.AuditEntry;
import java.time.Instant;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/**
 * The files of an evidence bundle and the JSON form of its lines, shared by the export and the offline verifier
 * (docs/compliance.md, "Evidence for auditors").
 */
final class BundleFormat {

    static final int VERSION = 1;
    static final String MANIFEST = "manifest.json";
    static final String ENTRIES = "entries.jsonl";
    static final String CHECKPOINTS = "checkpoints.jsonl";
    static final String README = "README.txt";
    static final String APPLICATIONS = "applications/";
    /** Where a checkpoint in the bundle was read: the database's table or the anchor file outside it. */
    static final String FROM_TABLE = "table";
    static final String FROM_ANCHOR = "anchor-file";

    static final JsonMapper JSON = JsonMapper.builder().build();

    static final String README_TEXT = """
            Lockstep audit evidence bundle
            ==============================

            manifest.json      what was exported, by whom, when; the query; counts; the SHA-256 of every other file;
                               the chain's head (seq, hash) at export time
            entries.jsonl      the chain from the first selected entry on to the first checkpoint covering the last
                               one: selected entries in full ("kind":"entry"), the others as hash-only links
                               ("kind":"link": seq, prev_hash, hash) so their content stays undisclosed
            checkpoints.jsonl  Ed25519-signed checkpoints (entries, head hash, time) from the database ("source":"table")
                               and from the anchor file kept outside it ("source":"anchor-file")
            applications/      one human-readable timeline per application in the export

            Verify it offline (no database, no network):

                java -jar lockstep.jar verify this-bundle.zip --key <the installation's public key, base64>

            The installation prints its public key and fingerprint at every start. Exit code 0: intact; 1: a break,
            printed with its file, line and seq; 2: the command was used wrongly. Without --key the verifier lists the
            fingerprints of the keys that signed and you compare them with the installation's yourself.
            The manifest's hashes show the files were not damaged in transit; what proves the entries unaltered is the
            chain and the signed checkpoints, which the verifier checks whatever the manifest says.
            """;

    private BundleFormat() {
    }

    /** A selected entry, every field, so its hash can be recomputed. */
    static ObjectNode entry(AuditEntry entry) {
        ObjectNode line = JSON.createObjectNode().put("kind", "entry").put("seq", entry.seq()).put("format", entry.format())
                .put("at", entry.at().toString()).put("clock_source", entry.clockSource()).put("actor", entry.actor())
                .put("actor_roles", entry.actorRoles()).put("action", entry.action()).put("application_id", entry.applicationId())
                .put("lifecycle_no", entry.lifecycleNo()).put("definition_version", entry.definitionVersion())
                .put("request_id", entry.requestId()).put("gtrid", entry.gtrid()).put("detail", entry.detail());
        return line.put("prev_hash", entry.prevHash()).put("hash", entry.hash());
    }

    /** An entry outside the selection: only what continuity needs, none of its content. */
    static ObjectNode link(long seq, String prevHash, String hash) {
        return JSON.createObjectNode().put("kind", "link").put("seq", seq).put("prev_hash", prevHash).put("hash", hash);
    }

    static AuditEntry entry(JsonNode line) {
        return new AuditEntry(line.get("seq").asLong(), line.get("format").asInt(), Instant.parse(line.get("at").asString()),
                text(line, "clock_source"), text(line, "actor"), text(line, "actor_roles"), text(line, "action"),
                line.path("application_id").isNull() ? null : line.get("application_id").asLong(),
                line.path("lifecycle_no").isNull() ? null : line.get("lifecycle_no").asInt(), text(line, "definition_version"),
                text(line, "request_id"), text(line, "gtrid"), text(line, "detail"), text(line, "prev_hash"), text(line, "hash"));
    }

    static ObjectNode checkpoint(Checkpoint checkpoint) {
        return JSON.createObjectNode().put("installation_id", checkpoint.installationId()).put("entries", checkpoint.entries())
                .put("head_hash", checkpoint.headHash()).put("at", checkpoint.at().toString()).put("signed_by", checkpoint.signedBy())
                .put("public_key", checkpoint.publicKey()).put("signature", checkpoint.signature());
    }

    static Checkpoint checkpoint(JsonNode line) {
        return new Checkpoint(text(line, "installation_id"), line.get("entries").asLong(), text(line, "head_hash"),
                Instant.parse(line.get("at").asString()), text(line, "signed_by"), text(line, "public_key"), text(line, "signature"));
    }

    /** A missing member and JSON null both read as null. */
    private static String text(JsonNode line, String name) {
        JsonNode value = line.path(name);
        return value.isMissingNode() || value.isNull() ? null : value.asString();
    }
}
