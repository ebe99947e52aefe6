package dev.lockstep.platform.audit.evidence;

import dev.lockstep.platform.audit.AuditEntry;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Instant;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Consumer;
import java.util.zip.ZipEntry;
import java.util.zip.ZipOutputStream;
import tools.jackson.databind.node.ObjectNode;

/**
 * Writes an evidence bundle as a zip, streaming: entries first (one line each, in seq order), then checkpoints,
 * one timeline page per application, the README and last the manifest with every other file's SHA-256. Memory
 * stays bounded by one line, whatever the span.
 */
final class BundleWriter {

    private final ZipOutputStream zip;
    private final Map<String, String> digests = new LinkedHashMap<>();
    private final Map<String, Long> counts = new LinkedHashMap<>();
    private MessageDigest digest;
    private String open;
    private Long firstSeq;
    private Long lastSeq;

    BundleWriter(OutputStream out) {
        this.zip = new ZipOutputStream(out, StandardCharsets.UTF_8);
        for (String count : new String[] {"entries", "full_entries", "links", "checkpoints", "applications"}) {
            counts.put(count, 0L);
        }
    }

    /** The next entry of the span, in full when {@code selected}, else as a hash-only link. */
    void entry(AuditEntry entry, boolean selected) {
        switchTo(BundleFormat.ENTRIES);
        line(selected ? BundleFormat.entry(entry) : BundleFormat.link(entry.seq(), entry.prevHash(), entry.hash()));
        firstSeq = firstSeq == null ? entry.seq() : firstSeq;
        lastSeq = entry.seq();
        count("entries");
        count(selected ? "full_entries" : "links");
    }

    void checkpoint(Checkpoint checkpoint, String source) {
        // an empty span still has its (empty) entries file, so the manifest always lists it
        switchTo(BundleFormat.ENTRIES);
        switchTo(BundleFormat.CHECKPOINTS);
        line(BundleFormat.checkpoint(checkpoint).put("source", source));
        count("checkpoints");
    }

    /** A human-readable timeline of one application; {@code entries} hands over its entries in seq order. */
    void application(long applicationId, String installationId, Instant exportedAt, Consumer<Consumer<AuditEntry>> entries) {
        switchTo(BundleFormat.APPLICATIONS + applicationId + ".html");
        text(ApplicationTimeline.head(applicationId, installationId, exportedAt));
        entries.accept(entry -> text(ApplicationTimeline.row(entry)));
        text(ApplicationTimeline.TAIL);
        count("applications");
    }

    /** Writes the README and the manifest and ends the zip; the stream underneath stays open. */
    void finish(String installationId, Instant exportedAt, String exportedBy, ObjectNode query, long headSeq, String headHash) {
        switchTo(BundleFormat.ENTRIES);
        switchTo(BundleFormat.CHECKPOINTS);
        switchTo(BundleFormat.README);
        text(BundleFormat.README_TEXT);
        close();
        ObjectNode manifest = BundleFormat.JSON.createObjectNode().put("bundle_format", BundleFormat.VERSION)
                .put("installation_id", installationId).put("exported_at", exportedAt.toString()).put("exported_by", exportedBy);
        manifest.set("query", query);
        manifest.putObject("span").put("first_seq", firstSeq).put("last_seq", lastSeq);
        manifest.putObject("chain_head").put("seq", headSeq).put("hash", headHash);
        ObjectNode countsNode = manifest.putObject("counts");
        counts.forEach(countsNode::put);
        ObjectNode files = manifest.putObject("files");
        digests.forEach(files::put);
        try {
            zip.putNextEntry(new ZipEntry(BundleFormat.MANIFEST));
            zip.write(BundleFormat.JSON.writerWithDefaultPrettyPrinter().writeValueAsBytes(manifest));
            zip.closeEntry();
            zip.finish();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Opens {@code name} unless it was written already (files come in a fixed order, each once). */
    private void switchTo(String name) {
        if (name.equals(open) || digests.containsKey(name)) {
            return;
        }
        close();
        try {
            zip.putNextEntry(new ZipEntry(name));
            digest = MessageDigest.getInstance("SHA-256");
            open = name;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is always present in the JDK", e);
        }
    }

    private void close() {
        if (open == null) {
            return;
        }
        try {
            zip.closeEntry();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        digests.put(open, HexFormat.of().formatHex(digest.digest()));
        open = null;
    }

    private void line(ObjectNode line) {
        text(BundleFormat.JSON.writeValueAsString(line) + "\n");
    }

    private void text(String text) {
        byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
        digest.update(bytes);
        try {
            zip.write(bytes);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private void count(String name) {
        counts.merge(name, 1L, Long::sum);
    }
}
