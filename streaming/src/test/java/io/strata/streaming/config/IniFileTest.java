package io.strata.streaming.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class IniFileTest {

    private static final String STREAM_CONF = String.join("\n",
            "# stream.conf of a parent",
            "",
            "[stream]",
            "    enabled = no",
            "    destination = 10.0.0.1:19999 10.0.0.2:SSL",
            "\t api key   =   11111111-2222-3333-4444-555555555555  ",
            "",
            "[11111111-2222-3333-4444-555555555555]",
            "    enabled = yes",
            "    allow from = 10.* !10.0.0.66",
            "    default memory mode = dbengine",
            "    formula = a=b+c",
            "    comment inside = value # not a comment",
            "    empty =",
            "");

    @Test
    void readsSectionsNamesWithSpacesAndTrimmedValues() throws Exception {
        IniFile ini = IniFile.parse(STREAM_CONF, "stream.conf");
        assertEquals(List.of("stream", "11111111-2222-3333-4444-555555555555"), ini.sections());
        assertEquals("no", ini.get("stream", "enabled", "?"));
        assertEquals("10.0.0.1:19999 10.0.0.2:SSL", ini.get("stream", "destination", "?"));
        assertEquals("11111111-2222-3333-4444-555555555555", ini.get("stream", "api key", "?"));
        String key = "11111111-2222-3333-4444-555555555555";
        assertEquals("10.* !10.0.0.66", ini.get(key, "allow from", "?"));
        assertEquals("a=b+c", ini.get(key, "formula", "?"), "the value may contain '='");
        assertEquals("value # not a comment", ini.get(key, "comment inside", "?"), "no trailing comments");
        assertEquals("", ini.get(key, "empty", "?"), "an empty value is a value");
        assertEquals("dflt", ini.get(key, "absent", "dflt"));
        assertEquals("dflt", ini.get("no such section", "enabled", "dflt"));
    }

    @Test
    void everyEntryKnowsItsFileAndLine() throws Exception {
        IniFile ini = IniFile.parse(STREAM_CONF, "stream.conf");
        IniFile.Entry entry = ini.entry("11111111-2222-3333-4444-555555555555", "allow from").orElseThrow();
        assertEquals(new IniFile.Entry("11111111-2222-3333-4444-555555555555", "allow from", "10.* !10.0.0.66",
                "stream.conf", 10), entry);
        assertEquals("stream.conf:10", entry.location());
        assertEquals(Optional.of("stream.conf:3"), ini.sectionLocation("stream"));
        assertEquals(Optional.empty(), ini.sectionLocation("nope"));
    }

    @Test
    void namesAndSectionsAreCaseSensitive() throws Exception {
        IniFile ini = IniFile.parse("[Stream]\nEnabled = yes\n", "x.conf");
        assertEquals("d", ini.get("stream", "Enabled", "d"));
        assertEquals("d", ini.get("Stream", "enabled", "d"));
        assertEquals("yes", ini.get("Stream", "Enabled", "d"));
    }

    @Test
    void sectionNameIsNotTrimmed() throws Exception {
        IniFile ini = IniFile.parse("[ stream ]\na = 1\n", "x.conf");
        assertEquals(List.of(" stream "), ini.sections());
        assertEquals("1", ini.get(" stream ", "a", "?"));
    }

    @Test
    void duplicateNameLaterLineWinsAndTheLoserIsReported() throws Exception {
        IniFile ini = IniFile.parse("[s]\na = 1\nb = x\na = 2\n[t]\nc = 3\n[s]\na = 3\n", "d.conf");
        assertEquals("3", ini.get("s", "a", "?"));
        assertEquals(3, ini.getLong("s", "a", -1));
        assertEquals(List.of("s", "t"), ini.sections(), "a reopened section is the same section");
        assertEquals(List.of(2, 4), ini.overriddenEntries().stream().map(IniFile.Entry::line).toList());
        assertEquals(Optional.of("d.conf:1"), ini.sectionLocation("s"));
        assertEquals(List.of("b", "a"), ini.entries("s").stream().map(IniFile.Entry::name).toList());
        assertEquals(8, ini.peek("s", "a").orElseThrow().line());
    }

    @Test
    void booleansAreNetdatas() throws Exception {
        IniFile ini = IniFile.parse(String.join("\n", "[b]", "a = yes", "b = TRUE", "c = On", "d = auto",
                "e = on demand", "f = no", "g = maybe", "h = 1", "i = ", "j = off"), "b.conf");
        for (String name : List.of("a", "b", "c", "d", "e")) {
            assertTrue(ini.getBoolean("b", name, false), name);
        }
        for (String name : List.of("f", "g", "h", "i", "j")) {
            assertFalse(ini.getBoolean("b", name, true), name + ": anything else is false, even 1");
        }
        assertTrue(ini.getBoolean("b", "absent", true));
        assertFalse(ini.getBoolean("b", "absent", false));
    }

    @Test
    void numbersAreStrtoll() throws Exception {
        IniFile ini = IniFile.parse("[n]\nport = 0x4e1f\ntimeout = 600 seconds\nbad = soon\nneg = -5\n", "n.conf");
        assertEquals(19999, ini.getLong("n", "port", 0));
        assertEquals(600, ini.getLong("n", "timeout", 0));
        assertEquals(0, ini.getLong("n", "bad", 77));
        assertEquals(-5, ini.getLong("n", "neg", 0));
        assertEquals(77, ini.getLong("n", "absent", 77));
    }

    @Test
    void readingMarksEntriesUsed() throws Exception {
        IniFile ini = IniFile.parse(STREAM_CONF, "stream.conf");
        assertEquals(9, ini.unusedEntries().size());
        ini.get("stream", "enabled", "no");
        ini.getBoolean("stream", "destination", false);
        ini.entry("stream", "api key");
        ini.peek("11111111-2222-3333-4444-555555555555", "enabled");
        ini.entries("11111111-2222-3333-4444-555555555555");
        List<IniFile.Entry> unused = ini.unusedEntries();
        assertEquals(List.of("enabled", "allow from", "default memory mode", "formula", "comment inside", "empty"),
                unused.stream().map(IniFile.Entry::name).toList(), "peek and entries() do not mark");
        assertEquals("stream.conf:9", unused.get(0).location());
    }

    @Test
    void crlfLineEndsAndByteOrderMark() throws Exception {
        IniFile ini = IniFile.parse("\uFEFF[s]\r\na = 1\r\n# c\r\nb = 2\r\n", "w.conf");
        assertEquals("1", ini.get("s", "a", "?"));
        assertEquals(4, ini.entry("s", "b").orElseThrow().line());
    }

    @Test
    void malformedLinesFailWithFileAndLine() {
        assertError("[s]\na = 1\njust words\n", 3, "expected 'name = value' or '[section]', found: just words");
        assertError("a = 1\n", 1, "'a = ...' appears before any [section]");
        assertError("[s]\n = 1\n", 2, "empty name before '='");
        assertError("# c\n[]\n", 2, "empty section name '[]'");
        assertError("[s]\n[t\n", 2, "section header must be '[name]' alone on its line");
        assertError("[s] trailing\n", 1, "section header must be '[name]' alone on its line");
    }

    private static void assertError(String text, int line, String messagePart) {
        IniException e = assertThrows(IniException.class, () -> IniFile.parse(text, "bad.conf"));
        assertEquals("bad.conf", e.file());
        assertEquals(line, e.line());
        assertTrue(e.getMessage().startsWith("bad.conf:" + line + ": "), e.getMessage());
        assertTrue(e.getMessage().contains(messagePart), e.getMessage());
    }

    @Test
    void loadReadsAFileAndNamesItByPath(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("stream.conf");
        Files.write(file, "[stream]\n  enabled = yes\n  destination = parent\n".getBytes(StandardCharsets.UTF_8));
        IniFile ini = IniFile.load(file);
        assertEquals(file.toString(), ini.fileName());
        assertTrue(ini.getBoolean("stream", "enabled", false));
        assertEquals(file + ":3", ini.entry("stream", "destination").orElseThrow().location());

        Files.write(file, "[stream]\nenabled\n".getBytes(StandardCharsets.UTF_8));
        IniException e = assertThrows(IniException.class, () -> IniFile.load(file));
        assertEquals(file + ":2: expected 'name = value' or '[section]', found: enabled", e.getMessage());
    }

    @Test
    void emptyTextHasNoSections() throws Exception {
        IniFile ini = IniFile.parse("", "e.conf");
        assertTrue(ini.sections().isEmpty());
        assertTrue(ini.unusedEntries().isEmpty());
        assertEquals("d", ini.get("stream", "enabled", "d"));
    }
}
