package dev.lockstep.architecture;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * README.md and docs/ name classes, packages and files, and link to each other's headings. Code moves
 * and headings change; a reference left behind sends the reader nowhere. This test fails on any
 * reference that does not resolve.
 */
class DocumentationReferencesTest {

    private static final List<Path> SOURCE_ROOTS = List.of(Path.of("src/main/java"), Path.of("src/test/java"),
            Path.of("chaos-tests/src/test/java"));

    /** {@code dev.lockstep.area.package.Type.member} or its path form. */
    private static final Pattern QUALIFIED_NAME = Pattern.compile("\\bdev[./]lockstep((?:[./][A-Za-z_]\\w*)*)");

    /** A file of the repository: {@code src/…}, {@code chaos-tests/…}, {@code docs/…}. */
    private static final Pattern REPOSITORY_PATH = Pattern.compile("(?<![\\w/.-])((?:src|chaos-tests|docs)/[\\w./-]*[\\w/])");

    /**
     * A short path in backticks, relative to {@code dev/lockstep} (or the chaos suite's package), e.g.
     * {@code `transactions/xa/XaPool`}, or a migration relative to the resources, {@code `db/business/V300__outbox_event`}.
     */
    private static final Pattern SHORT_PATH = Pattern.compile("`(?!src/|chaos-tests/)((?:[a-z]\\w*/)+[A-Z]\\w*)(?:\\.java|\\.sql)?(?:[#.][\\w()]*)*`");

    /** A Markdown link to a local file, with an optional heading anchor. */
    private static final Pattern LINK = Pattern.compile("\\]\\(([^)#\\s]*)(?:#([^)\\s]*))?\\)");

    @Test
    void everyClassPackageAndFileTheDocsNameExists() {
        List<String> broken = new ArrayList<>();
        for (Path doc : documents()) {
            String text = read(doc);
            QUALIFIED_NAME.matcher(text).results().map(name -> name.group(1)).filter(name -> !name.isEmpty())
                    .filter(name -> !qualifiedNameResolves(name.substring(1).split("[./]")))
                    .forEach(name -> broken.add(doc + ": dev.lockstep" + name));
            REPOSITORY_PATH.matcher(text).results().map(path -> path.group(1))
                    .filter(path -> !pathResolves(Path.of(path)))
                    .forEach(path -> broken.add(doc + ": " + path));
            SHORT_PATH.matcher(text).results().map(path -> path.group(1))
                    .filter(path -> !shortPathResolves(path))
                    .forEach(path -> broken.add(doc + ": `" + path + "`"));
        }
        assertThat(broken).as("references in README.md and docs/ to classes, packages or files that do not exist").isEmpty();
    }

    @Test
    void everyLinkToADocumentAndHeadingResolves() {
        Map<Path, Set<String>> anchors = new HashMap<>();
        List<String> broken = new ArrayList<>();
        for (Path doc : documents()) {
            Matcher link = LINK.matcher(read(doc));
            while (link.find()) {
                String target = link.group(1);
                if (target.contains(":")) {
                    continue; // http(s), mailto: not this test's business
                }
                Path file = target.isEmpty() ? doc : doc.resolveSibling(target).normalize();
                if (!Files.exists(file)) {
                    broken.add(doc + ": " + link.group());
                } else if (link.group(2) != null && file.toString().endsWith(".md")
                        && !anchors.computeIfAbsent(file, DocumentationReferencesTest::headingAnchors).contains(link.group(2))) {
                    broken.add(doc + ": " + link.group());
                }
            }
        }
        assertThat(broken).as("links in README.md and docs/ to files or headings that do not exist").isEmpty();
    }

    @Test
    void theScanFindsReferencesAtAll() {
        // Guards the rules above against patterns that match nothing.
        String architecture = read(Path.of("docs/architecture.md"));
        assertThat(SHORT_PATH.matcher(architecture).results().count()).isGreaterThan(3);
        assertThat(LINK.matcher(read(Path.of("README.md"))).results().count()).isGreaterThan(3);
        assertThat(headingAnchors(Path.of("docs/architecture.md"))).contains("business-only-work-a-local-transaction");
        assertThat(qualifiedNameResolves(new String[] {"transactions", "xa", "XaPool", "getConnection"})).isTrue();
        assertThat(qualifiedNameResolves(new String[] {"xa", "XaPool"})).isFalse();
    }

    private static List<Path> documents() {
        try (Stream<Path> docs = Files.list(Path.of("docs"))) {
            return Stream.concat(Stream.of(Path.of("README.md")), docs.filter(path -> path.toString().endsWith(".md")).sorted())
                    .toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Packages down to the first capitalised segment, which must be a source file; what follows is a member. */
    private static boolean qualifiedNameResolves(String[] segments) {
        Path relative = Path.of("dev", "lockstep");
        for (String segment : segments) {
            if (Character.isUpperCase(segment.charAt(0))) {
                Path type = relative.resolve(segment + ".java");
                return SOURCE_ROOTS.stream().anyMatch(root -> Files.isRegularFile(root.resolve(type)));
            }
            relative = relative.resolve(segment);
            Path packageDirectory = relative;
            if (SOURCE_ROOTS.stream().noneMatch(root -> Files.isDirectory(root.resolve(packageDirectory)))) {
                return false;
            }
        }
        return true;
    }

    private static boolean pathResolves(Path path) {
        return Files.exists(path) || Files.exists(Path.of(path + ".java"));
    }

    private static boolean shortPathResolves(String path) {
        if (Files.isRegularFile(Path.of("src/main/resources", path + ".sql"))) {
            return true;
        }
        return Stream.of(Path.of("dev/lockstep"), Path.of("dev/lockstep/chaos")).anyMatch(base -> SOURCE_ROOTS.stream()
                .anyMatch(root -> Files.isRegularFile(root.resolve(base).resolve(path + ".java"))));
    }

    /** GitHub's anchors: the heading in lower case, punctuation dropped, spaces as hyphens, repeats numbered. */
    private static Set<String> headingAnchors(Path doc) {
        Map<String, Integer> seen = new HashMap<>();
        boolean[] inCode = {false};
        return read(doc).lines().filter(line -> {
            if (line.startsWith("```")) {
                inCode[0] = !inCode[0];
            }
            return !inCode[0] && line.matches("#{1,6} .*");
        }).map(line -> {
            String slug = line.replaceFirst("#{1,6} ", "").strip().toLowerCase()
                    .replaceAll("[^\\p{L}\\p{N}_ -]", "").replace(' ', '-');
            int repeat = seen.merge(slug, 1, Integer::sum) - 1;
            return repeat == 0 ? slug : slug + "-" + repeat;
        }).collect(Collectors.toSet());
    }

    private static String read(Path path) {
        try {
            return Files.readString(path);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
