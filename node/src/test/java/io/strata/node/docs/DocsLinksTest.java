package io.strata.node.docs;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The README and every page under {@code docs/} link only to files of the repository that exist,
 * and to headings that exist in them; none points outside the repository. The node module runs
 * it because CI builds it; the repository root is found by walking up from the working directory
 * (the module's directory under Maven, the root when run from an IDE).
 */
class DocsLinksTest {

    /** {@code [text](target)} and {@code ![alt](target)}; the target ends at a space (a title) or ')'. */
    private static final Pattern INLINE_LINK = Pattern.compile("!?\\[[^\\]]*\\]\\(<?([^)\\s>]+)>?(?:\\s+\"[^\"]*\")?\\)");
    /** {@code [label]: target} reference definitions. */
    private static final Pattern REFERENCE_LINK = Pattern.compile("^\\s{0,3}\\[[^\\]]+\\]:\\s+<?(\\S+?)>?(?:\\s.*)?$");
    private static final Pattern INLINE_CODE = Pattern.compile("`+[^`]*`+");
    private static final Pattern HEADING = Pattern.compile("^#{1,6}\\s+(.*?)\\s*#*\\s*$");

    @Test
    void everyRelativeLinkResolvesInsideTheRepository() throws IOException {
        Path root = repositoryRoot();
        List<Path> pages = markdownPages(root);
        assertTrue(pages.size() > 5, "found the README and the docs pages: " + pages);
        List<String> broken = new ArrayList<>();
        int checked = 0;
        for (Path page : pages) {
            for (Link link : links(page)) {
                String target = link.target();
                if (isExternal(target)) {
                    continue;
                }
                checked++;
                String problem = problemWith(root, page, target);
                if (problem != null) {
                    broken.add(root.relativize(page) + ":" + link.line() + ": " + target + " (" + problem + ")");
                }
            }
        }
        assertTrue(checked > 20, "links checked: " + checked);
        assertEquals(List.of(), broken, "broken links");
    }

    @Test
    void noPagePointsAtTheDevelopmentMachine() throws IOException {
        Path root = repositoryRoot();
        List<String> found = new ArrayList<>();
        for (Path page : markdownPages(root)) {
            List<String> lines = Files.readAllLines(page, StandardCharsets.UTF_8);
            for (int i = 0; i < lines.size(); i++) {
                String line = lines.get(i);
                if (line.contains("/work/") || line.contains("../shared") || line.contains("shared/protocol")
                        || line.contains("shared/vectors")) {
                    found.add(root.relativize(page) + ":" + (i + 1) + ": " + line.strip());
                }
            }
        }
        assertEquals(List.of(), found, "paths outside the repository");
    }

    @Test
    void headingSlugsFollowGitHub() {
        assertEquals("2-handshake", slug("2. Handshake"));
        assertEquals("62-how-the-parent-chooses-afterbefore-1371",
                slug("6.2 How the parent chooses after/before (1.37.1)"));
        assertEquals("apiv1data-under-64-clients", slug("`/api/v1/data` under 64 clients"));
        assertFalse(slug("Write rate, 3 tiers").contains(","));
    }

    private static String problemWith(Path root, Path page, String target) throws IOException {
        int hash = target.indexOf('#');
        String file = hash < 0 ? target : target.substring(0, hash);
        String anchor = hash < 0 ? null : target.substring(hash + 1);
        if (file.startsWith("/")) {
            return "absolute path";
        }
        Path resolved = file.isEmpty() ? page : page.getParent().resolve(decode(file)).normalize();
        if (!resolved.startsWith(root)) {
            return "outside the repository";
        }
        if (!Files.exists(resolved)) {
            String relative = root.relativize(resolved).toString().replace('\\', '/');
            return "no such file";
        }
        if (anchor != null && !anchor.isEmpty() && resolved.toString().endsWith(".md")
                && !anchors(resolved).contains(anchor)) {
            return "no heading #" + anchor + " in " + root.relativize(resolved);
        }
        return null;
    }

    private static boolean isExternal(String target) {
        return target.matches("^[a-zA-Z][a-zA-Z0-9+.-]*:.*");
    }

    private static String decode(String path) {
        return path.replace("%20", " ");
    }

    private record Link(int line, String target) {
    }

    /** The links of a page, outside fenced code blocks and inline code. */
    private static List<Link> links(Path page) throws IOException {
        List<Link> links = new ArrayList<>();
        boolean fenced = false;
        List<String> lines = Files.readAllLines(page, StandardCharsets.UTF_8);
        for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i);
            if (line.stripLeading().startsWith("```")) {
                fenced = !fenced;
                continue;
            }
            if (fenced) {
                continue;
            }
            String text = INLINE_CODE.matcher(line).replaceAll("``");
            Matcher m = INLINE_LINK.matcher(text);
            while (m.find()) {
                links.add(new Link(i + 1, m.group(1)));
            }
            Matcher r = REFERENCE_LINK.matcher(text);
            if (r.matches()) {
                links.add(new Link(i + 1, r.group(1)));
            }
        }
        return links;
    }

    /** The anchors GitHub gives a page's headings (duplicates get -1, -2, ...). */
    private static Set<String> anchors(Path page) throws IOException {
        Set<String> anchors = new HashSet<>();
        Map<String, Integer> seen = new HashMap<>();
        boolean fenced = false;
        for (String line : Files.readAllLines(page, StandardCharsets.UTF_8)) {
            if (line.stripLeading().startsWith("```")) {
                fenced = !fenced;
                continue;
            }
            Matcher m = HEADING.matcher(line);
            if (fenced || !m.matches()) {
                continue;
            }
            String slug = slug(m.group(1));
            int n = seen.merge(slug, 1, Integer::sum);
            anchors.add(n == 1 ? slug : slug + "-" + (n - 1));
        }
        return anchors;
    }

    /** GitHub's heading anchor: lower case, letters, digits, '-' and '_' kept, spaces to '-', the rest dropped. */
    static String slug(String heading) {
        String text = heading.replaceAll("\\[([^\\]]*)\\]\\([^)]*\\)", "$1").toLowerCase(Locale.ROOT);
        StringBuilder b = new StringBuilder(text.length());
        text.codePoints().forEach(c -> {
            if (Character.isLetterOrDigit(c) || c == '-' || c == '_') {
                b.appendCodePoint(c);
            } else if (c == ' ') {
                b.append('-');
            }
        });
        return b.toString();
    }

    private static List<Path> markdownPages(Path root) throws IOException {
        List<Path> pages = new ArrayList<>();
        pages.add(root.resolve("README.md"));
        try (Stream<Path> docs = Files.walk(root.resolve("docs"))) {
            docs.filter(p -> p.toString().endsWith(".md")).sorted().forEach(pages::add);
        }
        return pages;
    }

    /** The directory holding the README, {@code docs/} and the root pom, from the working directory up. */
    static Path repositoryRoot() {
        Path dir = Path.of("").toAbsolutePath();
        for (Path d = dir; d != null; d = d.getParent()) {
            if (Files.isRegularFile(d.resolve("README.md")) && Files.isDirectory(d.resolve("docs"))
                    && Files.isRegularFile(d.resolve("pom.xml")) && Files.isDirectory(d.resolve("node"))) {
                return d.toAbsolutePath().normalize();
            }
        }
        throw new IllegalStateException("no repository root (README.md, docs/, pom.xml, node/) above " + dir);
    }
}
