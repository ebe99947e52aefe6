package dev.lockstep.platform.audit.evidence;

import dev.lockstep.platform.audit.AuditEntry;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;

/**
 * {@code java -jar lockstep.jar verify <bundle.zip> [--key <public key>]...}: checks an evidence bundle offline (no
 * database, no network, no Spring) and prints every check and every break with its file, line and seq. Entries are
 * streamed, so memory does not grow with the bundle. Exit code 0: intact; 1: broken; 2: used wrongly.
 */
public final class BundleVerifier {

    static final int INTACT = 0;
    static final int BROKEN = 1;
    static final int USAGE = 2;
    private static final int BREAKS_PRINTED = 200;
    private static final String USAGE_TEXT = "usage: java -jar lockstep.jar verify <bundle.zip> [--key <base64 Ed25519 public"
            + " key, or a file holding it (PEM or base64)>]...";

    private final ZipFile zip;
    private final Set<String> pinned;
    private final PrintStream out;
    private long breaks;

    private BundleVerifier(ZipFile zip, Set<String> pinned, PrintStream out) {
        this.zip = zip;
        this.pinned = pinned;
        this.out = out;
    }

    /** The command line's entry point ({@code dev.lockstep.LockstepApplication} dispatches here before Spring starts). */
    public static int run(List<String> args, PrintStream out) {
        Path bundle = null;
        Set<String> pinned = new LinkedHashSet<>();
        for (int i = 0; i < args.size(); i++) {
            String arg = args.get(i);
            if (arg.equals("--key") && i + 1 < args.size()) {
                String key = readKey(args.get(++i));
                if (key == null) {
                    out.println("not an Ed25519 public key: " + args.get(i) + "\n" + USAGE_TEXT);
                    return USAGE;
                }
                pinned.add(key);
            } else if (!arg.startsWith("--") && bundle == null) {
                bundle = Path.of(arg);
            } else {
                out.println("unexpected argument: " + arg + "\n" + USAGE_TEXT);
                return USAGE;
            }
        }
        if (bundle == null || !Files.isReadable(bundle)) {
            out.println((bundle == null ? "no bundle named" : "cannot read " + bundle) + "\n" + USAGE_TEXT);
            return USAGE;
        }
        out.println("Verifying " + bundle.toAbsolutePath());
        try (ZipFile zip = new ZipFile(bundle.toFile(), StandardCharsets.UTF_8)) {
            return new BundleVerifier(zip, pinned, out).verify();
        } catch (IOException e) {
            out.println("BREAK  " + bundle + ": not a readable zip bundle (" + e.getMessage() + ")");
            out.println("RESULT BROKEN");
            return BROKEN;
        }
    }

    /** Base64 as given, or read from a file (a PEM PUBLIC KEY block or base64 text); null unless it is an Ed25519 key. */
    private static String readKey(String value) {
        try {
            Path file = Path.of(value);
            String text = Files.isRegularFile(file) ? Files.readString(file, StandardCharsets.US_ASCII) : value;
            String base64 = text.replaceAll("-----(BEGIN|END) PUBLIC KEY-----", "").replaceAll("\\s", "");
            Checkpoint.publicKey(base64);
            return base64;
        } catch (IOException | GeneralSecurityException | RuntimeException e) {
            return null;
        }
    }

    private record Signed(Checkpoint checkpoint, String where) {
    }

    private int verify() throws IOException {
        JsonNode manifest = manifest();
        if (manifest == null) {
            return result();
        }
        String installation = manifest.path("installation_id").asString();
        long firstSeq = manifest.path("span").path("first_seq").asLong(0);
        long lastSeq = manifest.path("span").path("last_seq").asLong(0);
        long headSeq = manifest.path("chain_head").path("seq").asLong();
        out.printf("Bundle of installation %s, exported %s by %s; query %s; span seq %d..%d; chain head at export: seq %d%n",
                installation, manifest.path("exported_at").asString(), manifest.path("exported_by").asString(),
                manifest.path("query"), firstSeq, lastSeq, headSeq);
        checkFiles(manifest);
        Map<Long, List<Signed>> byEntries = checkpoints(installation, headSeq);
        checkEntries(manifest, byEntries, firstSeq, lastSeq, headSeq);
        return result();
    }

    private JsonNode manifest() throws IOException {
        ZipEntry entry = zip.getEntry(BundleFormat.MANIFEST);
        if (entry == null) {
            fail(BundleFormat.MANIFEST, "missing");
            return null;
        }
        try (InputStream in = zip.getInputStream(entry)) {
            JsonNode manifest = BundleFormat.JSON.readTree(in);
            if (manifest.path("bundle_format").asInt() != BundleFormat.VERSION) {
                fail(BundleFormat.MANIFEST, "bundle_format " + manifest.path("bundle_format") + " is not " + BundleFormat.VERSION);
                return null;
            }
            return manifest;
        } catch (JacksonException e) {
            fail(BundleFormat.MANIFEST, "not JSON (" + e.getOriginalMessage() + ")");
            return null;
        }
    }

    private void checkFiles(JsonNode manifest) throws IOException {
        Map<String, String> listed = new HashMap<>();
        manifest.path("files").properties().forEach(file -> listed.put(file.getKey(), file.getValue().asString()));
        int matching = 0;
        for (ZipEntry entry : Collections.list(zip.entries())) {
            String name = entry.getName();
            if (name.equals(BundleFormat.MANIFEST)) {
                continue;
            }
            String expected = listed.remove(name);
            if (expected == null) {
                fail(name, "not listed in the manifest");
            } else if (!expected.equals(sha256(entry))) {
                fail(name, "its SHA-256 differs from the manifest's");
            } else {
                matching++;
            }
        }
        new TreeSet<>(listed.keySet()).forEach(name -> fail(name, "listed in the manifest but absent"));
        out.printf("CHECK  file hashes: %d files match the SHA-256 the manifest lists%n", matching);
    }

    private String sha256(ZipEntry entry) throws IOException {
        try (InputStream in = zip.getInputStream(entry)) {
            MessageDigest digest = MessageDigest.getInstance("SHA-256");
            byte[] buffer = new byte[64 * 1024];
            for (int read = in.read(buffer); read >= 0; read = in.read(buffer)) {
                digest.update(buffer, 0, read);
            }
            return HexFormat.of().formatHex(digest.digest());
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is always present in the JDK", e);
        }
    }

    /** Checks every checkpoint's signature and installation; returns the counted ones by their entry count. */
    private Map<Long, List<Signed>> checkpoints(String installation, long headSeq) throws IOException {
        Map<Long, List<Signed>> byEntries = new HashMap<>();
        Set<String> fingerprints = new TreeSet<>();
        int lineNo = 0;
        int valid = 0;
        int counted = 0;
        try (BufferedReader lines = reader(BundleFormat.CHECKPOINTS)) {
            for (String line = lines == null ? null : lines.readLine(); line != null; line = lines.readLine()) {
                String where = BundleFormat.CHECKPOINTS + " line " + ++lineNo;
                Checkpoint checkpoint;
                try {
                    JsonNode json = BundleFormat.JSON.readTree(line);
                    checkpoint = BundleFormat.checkpoint(json);
                    where += " (" + json.path("source").asString() + ", " + checkpoint.entries() + " entries, signed by "
                            + checkpoint.signedBy() + " at " + checkpoint.at() + ")";
                } catch (RuntimeException e) {
                    fail(where, "not a checkpoint (" + e.getMessage() + ")");
                    continue;
                }
                if (!checkpoint.signatureValid()) {
                    fail(where, "its Ed25519 signature does not verify: the checkpoint was altered or forged");
                    continue;
                }
                valid++;
                fingerprints.add(Checkpoint.fingerprint(checkpoint.publicKey()));
                if (!checkpoint.installationId().equals(installation)) {
                    fail(where, "signed for installation " + checkpoint.installationId() + ", the manifest says " + installation);
                    continue;
                }
                if (!pinned.isEmpty() && !pinned.contains(checkpoint.publicKey())) {
                    out.printf("NOTE   %s: signed by key %s, which is not pinned with --key: not counted%n", where,
                            Checkpoint.fingerprint(checkpoint.publicKey()));
                    continue;
                }
                counted++;
                if (checkpoint.entries() > headSeq) {
                    fail(where, "counted " + checkpoint.entries() + " entries but the chain ends at seq " + headSeq
                            + ": entries after seq " + headSeq + " were removed");
                }
                byEntries.computeIfAbsent(checkpoint.entries(), entries -> new ArrayList<>()).add(new Signed(checkpoint, where));
            }
        }
        out.printf("CHECK  checkpoints: %d read, %d with a valid Ed25519 signature, %d counted (installation matches%s)%n",
                lineNo, valid, counted, pinned.isEmpty() ? "" : ", key pinned");
        out.println("       signing keys found: " + (fingerprints.isEmpty() ? "none" : String.join(", ", fingerprints)));
        if (pinned.isEmpty()) {
            out.println("       no --key given: compare these fingerprints with the key the installation printed at its start;"
                    + " anyone can sign a checkpoint with a key of their own");
        }
        return byEntries;
    }

    private void checkEntries(JsonNode manifest, Map<Long, List<Signed>> byEntries, long firstSeq, long lastSeq, long headSeq)
            throws IOException {
        long expectedSeq = firstSeq;
        String prevHash = null;
        String lastHash = null;
        long lineNo = 0;
        long full = 0;
        long links = 0;
        Long lastSelected = null;
        long coveredUpTo = -1;
        try (BufferedReader lines = reader(BundleFormat.ENTRIES)) {
            for (String line = lines == null ? null : lines.readLine(); line != null; line = lines.readLine()) {
                String where = BundleFormat.ENTRIES + " line " + ++lineNo;
                JsonNode json;
                long seq;
                try {
                    json = BundleFormat.JSON.readTree(line);
                    seq = json.get("seq").asLong();
                } catch (RuntimeException e) {
                    fail(where, "not an entry (" + e.getMessage() + ")");
                    prevHash = null;
                    expectedSeq++;
                    continue;
                }
                where += " (seq " + seq + ")";
                if (seq != expectedSeq) {
                    fail(where, seq > expectedSeq ? "seq " + expectedSeq + (seq - 1 > expectedSeq ? ".." + (seq - 1) : "")
                            + " missing: entries were removed" : "seq out of order, " + expectedSeq + " expected");
                }
                String hash = json.path("hash").asString();
                if (prevHash != null && !prevHash.equals(json.path("prev_hash").asString())) {
                    fail(where, "prev_hash does not match the hash of the entry before it: the chain is broken here");
                }
                if (json.path("kind").asString().equals("entry")) {
                    full++;
                    lastSelected = seq;
                    AuditEntry entry;
                    try {
                        entry = BundleFormat.entry(json);
                        if (!entry.recomputedHash().equals(hash)) {
                            fail(where, "its content does not give its hash: the entry was changed");
                        }
                    } catch (RuntimeException e) {
                        fail(where, "an entry that cannot be hashed (" + e.getMessage() + ")");
                    }
                } else {
                    links++;
                }
                for (Signed signed : byEntries.getOrDefault(seq, List.of())) {
                    if (signed.checkpoint().headHash().equals(hash)) {
                        coveredUpTo = Math.max(coveredUpTo, seq);
                    } else {
                        fail(where, "the checkpoint at " + signed.where() + " signed head " + signed.checkpoint().headHash()
                                + " for this entry, which has " + hash + ": the chain was rewritten");
                    }
                }
                prevHash = hash;
                lastHash = hash;
                expectedSeq = seq + 1;
            }
        }
        long entries = full + links;
        out.printf("CHECK  entries: %d read (%d in full with their hash recomputed, %d hash-only links), seq %d..%d contiguous"
                + " and each prev_hash the hash before it, unless a break is listed%n", entries, full, links, firstSeq, expectedSeq - 1);
        if (entries > 0) {
            out.printf("       seq %d's own predecessor is outside the bundle: its prev_hash is taken as given; the checkpoints"
                    + " after it fix every entry from it on%n", firstSeq);
        }
        JsonNode counts = manifest.path("counts");
        compare("entries", counts.path("entries").asLong(), entries);
        compare("full_entries", counts.path("full_entries").asLong(), full);
        compare("links", counts.path("links").asLong(), links);
        compare("applications", counts.path("applications").asLong(),
                Collections.list(zip.entries()).stream().filter(e -> e.getName().startsWith(BundleFormat.APPLICATIONS)).count());
        if (entries > 0 && expectedSeq - 1 != lastSeq) {
            fail(BundleFormat.ENTRIES, "ends at seq " + (expectedSeq - 1) + ", the manifest's span at " + lastSeq);
        }
        if (entries > 0 && headSeq == expectedSeq - 1 && !manifest.path("chain_head").path("hash").asString().equals(lastHash)) {
            fail(BundleFormat.MANIFEST, "chain_head hash differs from the hash of seq " + headSeq);
        }
        if (lastSelected == null) {
            out.println("CHECK  coverage: no entry selected");
        } else if (coveredUpTo >= lastSelected) {
            out.printf("CHECK  coverage: the last selected entry, seq %d, is covered by a counted checkpoint at %d entries whose"
                    + " head matches%n", lastSelected, coveredUpTo);
        } else {
            fail(BundleFormat.ENTRIES + " seq " + lastSelected, "the last selected entry is covered by no counted checkpoint"
                    + " with a matching head" + (pinned.isEmpty() ? "" : " signed by a pinned key"));
        }
    }

    private void compare(String count, long manifest, long found) {
        if (manifest != found) {
            fail(BundleFormat.MANIFEST, "counts " + manifest + " " + count + ", the bundle holds " + found);
        }
    }

    private BufferedReader reader(String name) throws IOException {
        ZipEntry entry = zip.getEntry(name);
        if (entry == null) {
            fail(name, "missing");
            return null;
        }
        return new BufferedReader(new InputStreamReader(zip.getInputStream(entry), StandardCharsets.UTF_8), 64 * 1024);
    }

    private void fail(String where, String what) {
        if (++breaks <= BREAKS_PRINTED) {
            out.println("BREAK  " + where + ": " + what);
        }
    }

    private int result() {
        long peak = ManagementFactory.getMemoryPoolMXBeans().stream().filter(pool -> pool.getType() == MemoryType.HEAP)
                .map(MemoryPoolMXBean::getPeakUsage).mapToLong(usage -> usage == null ? 0 : usage.getUsed()).sum();
        out.printf("peak heap used by this JVM: %d MiB (max %d MiB)%n", peak >> 20, Runtime.getRuntime().maxMemory() >> 20);
        if (breaks == 0) {
            out.println("RESULT INTACT");
            return INTACT;
        }
        if (breaks > BREAKS_PRINTED) {
            out.printf("... %d more breaks not printed%n", breaks - BREAKS_PRINTED);
        }
        out.println("RESULT BROKEN: " + breaks + (breaks == 1 ? " break" : " breaks"));
        return BROKEN;
    }
}
