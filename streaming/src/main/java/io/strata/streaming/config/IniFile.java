package io.strata.streaming.config;

import io.strata.engine.netdata.CNumbers;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A Netdata-style configuration file ({@code netdata.conf}, {@code stream.conf}), read the way
 * Netdata 1.37.1's {@code appconfig_load()} reads it:
 * <ul>
 *   <li>every line is trimmed of C white space; empty lines and lines starting with {@code #} are
 *       skipped (there are no trailing comments: {@code a = b # c} has the value {@code b # c});</li>
 *   <li>{@code [name]} opens a section; the name is what is between the brackets, untrimmed and
 *       case-sensitive; a section opened twice continues the first one;</li>
 *   <li>{@code name = value} splits at the first {@code =}; name and value are trimmed, the name may
 *       contain spaces, the value may contain {@code =} and may be empty; names are case-sensitive;</li>
 *   <li>a name repeated in a section: the later line wins (Netdata overwrites values not yet read).
 *       The losing lines are kept in {@link #overriddenEntries()} so they can be reported.</li>
 * </ul>
 * Where Netdata only logs and skips a line (no {@code =}, a value before any section, an empty name,
 * {@code []}), this class throws {@link IniException} with {@code file:line}: a configuration Strata
 * does not understand should stop it, not be half-applied.
 *
 * <p>Reading an entry through {@link #get}, {@link #getBoolean}, {@link #getLong} or {@link #entry}
 * marks it used; {@link #unusedEntries()} then lists what no reader asked for, so the caller can log
 * {@code file:line: unknown key ...}. Thread-safe.
 */
public final class IniFile {

    /** One {@code name = value} line. {@code line} is 1-based. */
    public record Entry(String section, String name, String value, String file, int line) {

        /** {@code file:line}, for messages. */
        public String location() {
            return file + ":" + line;
        }
    }

    private final String fileName;
    /** Effective entries (the last definition of each section/name), in file order. */
    private final List<Entry> entries;
    private final List<Entry> overridden;
    private final Map<String, Map<String, Integer>> index;
    private final List<String> sectionNames;
    private final Map<String, Integer> sectionLines;
    private final BitSet used = new BitSet();

    private IniFile(String fileName, List<Entry> entries, List<Entry> overridden, List<String> sectionNames,
            Map<String, Integer> sectionLines) {
        this.fileName = fileName;
        this.entries = List.copyOf(entries);
        this.overridden = List.copyOf(overridden);
        this.sectionNames = List.copyOf(sectionNames);
        this.sectionLines = Map.copyOf(sectionLines);
        Map<String, Map<String, Integer>> byName = new HashMap<>();
        for (int i = 0; i < this.entries.size(); i++) {
            Entry entry = this.entries.get(i);
            byName.computeIfAbsent(entry.section(), s -> new HashMap<>()).put(entry.name(), i);
        }
        this.index = byName;
    }

    /**
     * Reads and parses a file (UTF-8; malformed bytes become U+FFFD). The file name in messages is
     * {@code path.toString()}.
     */
    public static IniFile load(Path path) throws IOException, IniException {
        byte[] bytes = Files.readAllBytes(path);
        String text = StandardCharsets.UTF_8.newDecoder()
                .onMalformedInput(CodingErrorAction.REPLACE)
                .onUnmappableCharacter(CodingErrorAction.REPLACE)
                .decode(ByteBuffer.wrap(bytes))
                .toString();
        return parse(text, path.toString());
    }

    /** Parses configuration text; {@code fileName} only labels entries and messages. */
    public static IniFile parse(String text, String fileName) throws IniException {
        if (text == null) {
            throw new IniException(String.valueOf(fileName), 0, "no text to parse");
        }
        String file = fileName == null ? "<config>" : fileName;
        List<Entry> all = new ArrayList<>();
        List<String> sections = new ArrayList<>();
        Map<String, Integer> sectionLines = new HashMap<>();
        Map<String, Map<String, Integer>> seen = new HashMap<>();
        BitSet losers = new BitSet();
        String section = null;

        int lineNumber = 0;
        int start = 0;
        int length = text.length();
        if (length > 0 && text.charAt(0) == '\uFEFF') {
            start = 1;
        }
        while (start <= length) {
            int end = text.indexOf('\n', start);
            if (end < 0) {
                end = length;
            }
            lineNumber++;
            String line = cTrim(text, start, end);
            start = end + 1;
            if (line.isEmpty() || line.charAt(0) == '#') {
                if (end == length) {
                    break;
                }
                continue;
            }
            if (line.length() >= 2 && line.charAt(0) == '[' && line.charAt(line.length() - 1) == ']') {
                String name = line.substring(1, line.length() - 1);
                if (name.isEmpty()) {
                    throw new IniException(file, lineNumber, "empty section name '[]'");
                }
                section = name;
                if (!sectionLines.containsKey(name)) {
                    sectionLines.put(name, lineNumber);
                    sections.add(name);
                }
            } else {
                int equals = line.indexOf('=');
                if (equals < 0) {
                    if (line.charAt(0) == '[') {
                        throw new IniException(file, lineNumber,
                                "section header must be '[name]' alone on its line, found: " + line);
                    }
                    throw new IniException(file, lineNumber,
                            "expected 'name = value' or '[section]', found: " + line);
                }
                String name = cTrim(line, 0, equals);
                String value = cTrim(line, equals + 1, line.length());
                if (name.isEmpty()) {
                    throw new IniException(file, lineNumber, "empty name before '=' in: " + line);
                }
                if (section == null) {
                    throw new IniException(file, lineNumber,
                            "'" + name + " = ...' appears before any [section]");
                }
                Map<String, Integer> names = seen.computeIfAbsent(section, s -> new HashMap<>());
                Integer previous = names.put(name, all.size());
                if (previous != null) {
                    losers.set(previous);
                }
                all.add(new Entry(section, name, value, file, lineNumber));
            }
            if (end == length) {
                break;
            }
        }

        List<Entry> effective = new ArrayList<>(all.size());
        List<Entry> overridden = new ArrayList<>();
        for (int i = 0; i < all.size(); i++) {
            (losers.get(i) ? overridden : effective).add(all.get(i));
        }
        return new IniFile(file, effective, overridden, sections, sectionLines);
    }

    /** The file name given to {@link #parse} or the path given to {@link #load}. */
    public String fileName() {
        return fileName;
    }

    /** Section names in order of first appearance. */
    public List<String> sections() {
        return sectionNames;
    }

    /** {@code file:line} of the first {@code [section]} header, if the section exists. */
    public Optional<String> sectionLocation(String section) {
        Integer line = sectionLines.get(section);
        return line == null ? Optional.empty() : Optional.of(fileName + ":" + line);
    }

    /** The value of {@code [section] name}, or {@code def} when absent. Marks the entry used. */
    public String get(String section, String name, String def) {
        Optional<Entry> entry = entry(section, name);
        return entry.isPresent() ? entry.get().value() : def;
    }

    /**
     * Netdata's {@code appconfig_get_boolean()}: when present, true exactly for {@code yes},
     * {@code true}, {@code on}, {@code auto} and {@code on demand} (any case); every other value,
     * including typos, is false. Absent: {@code def}. Marks the entry used.
     */
    public boolean getBoolean(String section, String name, boolean def) {
        Optional<Entry> entry = entry(section, name);
        return entry.isPresent() ? isNetdataTrue(entry.get().value()) : def;
    }

    /**
     * Netdata's {@code appconfig_get_number()}: when present, {@code strtoll(value, NULL, 0)} (leading
     * digits only, {@code 0x} hex, leading-0 octal, no digits = 0). Absent: {@code def}. Marks the
     * entry used.
     */
    public long getLong(String section, String name, long def) {
        Optional<Entry> entry = entry(section, name);
        return entry.isPresent() ? CNumbers.strtoll(entry.get().value()) : def;
    }

    /** The entry of {@code [section] name}, marking it used. */
    public Optional<Entry> entry(String section, String name) {
        Integer position = position(section, name);
        if (position == null) {
            return Optional.empty();
        }
        synchronized (used) {
            used.set(position);
        }
        return Optional.of(entries.get(position));
    }

    /** The entry of {@code [section] name} without marking it used. */
    public Optional<Entry> peek(String section, String name) {
        Integer position = position(section, name);
        return position == null ? Optional.empty() : Optional.of(entries.get(position));
    }

    /** The effective entries of one section in file order (does not mark them used). */
    public List<Entry> entries(String section) {
        List<Entry> result = new ArrayList<>();
        for (Entry entry : entries) {
            if (entry.section().equals(section)) {
                result.add(entry);
            }
        }
        return Collections.unmodifiableList(result);
    }

    /** Effective entries no reader has asked for yet, in file order. */
    public List<Entry> unusedEntries() {
        List<Entry> result = new ArrayList<>();
        synchronized (used) {
            for (int i = 0; i < entries.size(); i++) {
                if (!used.get(i)) {
                    result.add(entries.get(i));
                }
            }
        }
        return Collections.unmodifiableList(result);
    }

    /** Entries replaced by a later line with the same section and name, in file order. */
    public List<Entry> overriddenEntries() {
        return overridden;
    }

    /** Netdata's {@code appconfig_test_boolean_value()}: yes/true/on/auto/"on demand", any case. */
    public static boolean isNetdataTrue(String value) {
        return value != null && (value.equalsIgnoreCase("yes") || value.equalsIgnoreCase("true")
                || value.equalsIgnoreCase("on") || value.equalsIgnoreCase("auto")
                || value.equalsIgnoreCase("on demand"));
    }

    private Integer position(String section, String name) {
        Map<String, Integer> names = index.get(section);
        return names == null ? null : names.get(name);
    }

    /** Netdata's {@code trim()}: strips C white space (not every control character, unlike String.trim). */
    static String cTrim(CharSequence text, int from, int to) {
        while (from < to && CNumbers.isCSpace(text.charAt(from))) {
            from++;
        }
        while (to > from && CNumbers.isCSpace(text.charAt(to - 1))) {
            to--;
        }
        return text.subSequence(from, to).toString();
    }

    @Override
    public String toString() {
        Map<String, Integer> counts = new LinkedHashMap<>();
        for (Entry entry : entries) {
            counts.merge(entry.section(), 1, Integer::sum);
        }
        return "IniFile[" + fileName + ", entries per section " + counts + "]";
    }
}
