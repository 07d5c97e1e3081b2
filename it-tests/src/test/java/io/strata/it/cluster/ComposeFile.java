package io.strata.it.cluster;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The services and their environment, as {@code docker/compose.yaml} declares them, so that a test
 * outside Docker runs the nodes that file describes. Reads the block-style YAML that file is written
 * in: nested mappings by indentation, scalars, flow lists kept as text, anchors ({@code &name}) on
 * mappings and merges ({@code <<: *name}), and Compose's {@code ${VAR:-default}} in values. Anything
 * else (a block list, a multi-line scalar) is refused with its line, so that a change of the file
 * that this reader would misread fails the test instead of passing it.
 */
final class ComposeFile {

    private static final Pattern VARIABLE = Pattern.compile("\\$\\{([A-Za-z_][A-Za-z0-9_]*)(:-([^}]*))?}");

    private final Map<String, Object> root;
    private final Path file;

    private ComposeFile(Path file, Map<String, Object> root) {
        this.file = file;
        this.root = root;
    }

    static ComposeFile read(Path file) throws IOException {
        List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
        Map<String, Object> root = new LinkedHashMap<>();
        Map<String, Map<String, Object>> anchors = new HashMap<>();
        // the open mappings, innermost last, with the indentation of their keys
        List<Map<String, Object>> open = new ArrayList<>();
        List<Integer> indents = new ArrayList<>();
        open.add(root);
        indents.add(0);
        for (int i = 0; i < lines.size(); i++) {
            String raw = stripComment(lines.get(i));
            if (raw.isBlank()) {
                continue;
            }
            String where = file + ":" + (i + 1);
            int indent = 0;
            while (raw.charAt(indent) == ' ') {
                indent++;
            }
            String text = raw.substring(indent).strip();
            if (text.startsWith("- ") || text.equals("-") || raw.indexOf('\t') >= 0) {
                throw new IOException(where + ": block lists and tabs are not read by this test's Compose reader");
            }
            while (indent < indents.get(indents.size() - 1)) {
                open.remove(open.size() - 1);
                indents.remove(indents.size() - 1);
            }
            Map<String, Object> into = open.get(open.size() - 1);
            if (indent > indents.get(indents.size() - 1)) {
                throw new IOException(where + ": indented deeper than a new mapping allows");
            }
            int colon = text.indexOf(':');
            if (colon <= 0) {
                throw new IOException(where + ": not a 'key: value' line: " + text);
            }
            String key = unquote(text.substring(0, colon).strip());
            String value = text.substring(colon + 1).strip();
            if (key.equals("<<")) {
                if (!value.startsWith("*") || !anchors.containsKey(value.substring(1))) {
                    throw new IOException(where + ": merge of an unknown anchor " + value);
                }
                // explicit keys win over merged ones, whichever comes first
                deepCopy(anchors.get(value.substring(1))).forEach(into::putIfAbsent);
                continue;
            }
            if (value.isEmpty() || value.startsWith("&")) {
                Map<String, Object> child = new LinkedHashMap<>();
                into.put(key, child);
                if (value.startsWith("&")) {
                    anchors.put(value.substring(1).strip(), child);
                }
                open.add(child);
                // its keys are on the next lines, indented deeper; the first one fixes how deep
                int next = nextIndent(lines, i + 1);
                indents.add(next > indent ? next : indent + 1);
                continue;
            }
            if (value.startsWith("|") || value.startsWith(">")) {
                throw new IOException(where + ": multi-line scalars are not read by this test's Compose reader");
            }
            into.put(key, unquote(value));
        }
        return new ComposeFile(file, root);
    }

    /** The service names, in the file's order. */
    List<String> services() {
        return new ArrayList<>(mapping(root, "services").keySet());
    }

    /**
     * A service's environment with {@code ${VAR:-default}} resolved from {@code variables} (the
     * environment Compose would run in), or from the default when the variable is not there.
     */
    Map<String, String> environment(String service, Map<String, String> variables) {
        Map<String, Object> env = mapping(mapping(mapping(root, "services"), service), "environment");
        Map<String, String> out = new LinkedHashMap<>();
        env.forEach((k, v) -> {
            if (!(v instanceof String s)) {
                throw new IllegalStateException(file + ": services." + service + ".environment." + k + " is not a scalar");
            }
            out.put(k, resolve(s, variables));
        });
        return out;
    }

    private Map<String, Object> mapping(Map<String, Object> in, String key) {
        Object v = in.get(key);
        if (!(v instanceof Map)) {
            throw new IllegalStateException(file + ": no mapping '" + key + "' where expected (found " + v + ")");
        }
        @SuppressWarnings("unchecked")
        Map<String, Object> m = (Map<String, Object>) v;
        return m;
    }

    static String resolve(String value, Map<String, String> variables) {
        Matcher m = VARIABLE.matcher(value);
        StringBuilder out = new StringBuilder();
        while (m.find()) {
            String set = variables.get(m.group(1));
            String replacement = set != null && !set.isEmpty() ? set : m.group(3) != null ? m.group(3) : "";
            m.appendReplacement(out, Matcher.quoteReplacement(replacement));
        }
        m.appendTail(out);
        return out.toString();
    }

    private static Map<String, Object> deepCopy(Map<String, Object> m) {
        Map<String, Object> out = new LinkedHashMap<>();
        m.forEach((k, v) -> {
            @SuppressWarnings("unchecked")
            Object copy = v instanceof Map ? deepCopy((Map<String, Object>) v) : v;
            out.put(k, copy);
        });
        return out;
    }

    private static int nextIndent(List<String> lines, int from) {
        for (int i = from; i < lines.size(); i++) {
            String s = stripComment(lines.get(i));
            if (!s.isBlank()) {
                int n = 0;
                while (n < s.length() && s.charAt(n) == ' ') {
                    n++;
                }
                return n;
            }
        }
        return 0;
    }

    /** A '#' at the start or after a blank begins a comment, unless inside quotes. */
    private static String stripComment(String line) {
        char quote = 0;
        for (int i = 0; i < line.length(); i++) {
            char c = line.charAt(i);
            if (quote != 0) {
                if (c == quote) {
                    quote = 0;
                }
            } else if (c == '"' || c == '\'') {
                quote = c;
            } else if (c == '#' && (i == 0 || line.charAt(i - 1) == ' ')) {
                return line.substring(0, i);
            }
        }
        return line;
    }

    private static String unquote(String s) {
        if (s.length() >= 2 && (s.charAt(0) == '"' || s.charAt(0) == '\'') && s.charAt(s.length() - 1) == s.charAt(0)) {
            return s.substring(1, s.length() - 1);
        }
        return s;
    }
}
