package io.strata.streaming.wire;

import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Word splitting as Netdata 1.37.1's quoted_strings_splitter with pluginsd_space. */
class LineTokenizerTest {

    private final LineTokenizer tokenizer = new LineTokenizer();

    private List<String> words(String line) {
        // a prefix and suffix around the line prove only [start, end) is read
        byte[] b = ("##" + line + "##").getBytes(StandardCharsets.ISO_8859_1);
        int n = tokenizer.tokenize(b, 2, b.length - 2);
        assertEquals(n, tokenizer.count());
        List<String> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            out.add(new String(b, tokenizer.start(i), tokenizer.end(i) - tokenizer.start(i),
                    StandardCharsets.ISO_8859_1));
            assertEquals(tokenizer.wordStart[i], tokenizer.start(i));
            assertEquals(tokenizer.wordEnd[i], tokenizer.end(i));
        }
        return out;
    }

    @Test
    void realLinesFromTheWire() {
        assertEquals(List.of("CHART", "system.cpu", "", "Total CPU utilization", "percentage", "cpu", "system.cpu",
                "stacked", "100", "1", "   ", "proc.plugin", "/proc/stat"),
                words("CHART \"system.cpu\" \"\" \"Total CPU utilization\" \"percentage\" \"cpu\" \"system.cpu\" "
                        + "\"stacked\" 100 1 \"   \" \"proc.plugin\" \"/proc/stat\""));
        assertEquals(List.of("LABEL", "testlabel", "2", "hello world"), words("LABEL \"testlabel\" = 2 \"hello world\""));
        assertEquals(List.of("SET", "user", "12345"), words("SET \"user\" = 12345"));
        assertEquals(List.of("VARIABLE", "HOST", "active_processors", "2.0000000"),
                words("VARIABLE HOST active_processors = 2.0000000"));
        assertEquals(List.of("DIMENSION", "idle", "idle", "percentage-of-incremental-row", "1", "1", " hidden "),
                words("DIMENSION \"idle\" \"idle\" \"percentage-of-incremental-row\" 1 1 \" hidden \""));
        assertEquals(List.of("RBEGIN", "", "1795263100", "1795263101", "1795263131"),
                words("RBEGIN '' 1795263100 1795263101 1795263131"));
        assertEquals(List.of("END"), words("END"));
    }

    @Test
    void separatorsAreSpaceTabCrLfAndEquals() {
        assertEquals(List.of("a", "b", "c", "d", "e"), words("  a\tb\r\rc==d \t=\r e \r"));
        assertEquals(List.of("SET", "x"), words("SET \"x\" = "));
    }

    @Test
    void blankLinesHaveNoWords() {
        assertEquals(List.of(), words(""));
        assertEquals(List.of(), words(" \t\r = "));
    }

    @Test
    void quotesHoldSeparatorsAndTheOtherQuote() {
        assertEquals(List.of("a b=c", "it's", "say \"hi\""), words("\"a b=c\" \"it's\" 'say \"hi\"'"));
    }

    @Test
    void emptyQuotedWordsAreWords() {
        assertEquals(List.of("", "", "x", ""), words("\"\" '' x \"\""));
        assertEquals(List.of(""), words("\"\""));
    }

    @Test
    void closingQuoteEndsTheWordEvenWithoutASeparator() {
        assertEquals(List.of("ab", "cd"), words("\"ab\"cd"));
        assertEquals(List.of("ab", "cd"), words("\"ab\"\"cd\""));
        assertEquals(List.of("ab", "c d"), words("\"ab\"'c d'"));
    }

    @Test
    void quoteInsideAWordIsAnOrdinaryByte() {
        assertEquals(List.of("ab\"cd", "ef\""), words("ab\"cd ef\""));
        assertEquals(List.of("x'y"), words("x'y"));
    }

    @Test
    void unterminatedQuoteRunsToTheEndOfTheLine() {
        assertEquals(List.of("CHART", "a b = c  "), words("CHART \"a b = c  "));
        assertEquals(List.of("x"), words("'x"));
    }

    @Test
    void loneQuoteMakesAnEmptyFirstWordButNoLaterWord() {
        // the first word is always stored; a later opening quote at the end of the line is not
        assertEquals(List.of(""), words("\""));
        assertEquals(List.of("a"), words("a \""));
        assertEquals(List.of("a", "  "), words("a '  "), "spaces after an opening quote are inside the quotes");
    }

    @Test
    void backslashSkipsTheNextByteAndStaysInTheWord() {
        assertEquals(List.of("a\\\"b", "c"), words("\"a\\\"b\" c"));
        assertEquals(List.of("a\\ b", "c"), words("a\\ b c"));
        assertEquals(List.of("a\\\\", "b"), words("\"a\\\\\" b"));
        assertEquals(List.of("end\\"), words("end\\"), "a backslash at the end of the line is just a byte");
        assertEquals(List.of("x\\"), words("\"x\\"), "same inside an unclosed quote");
    }

    @Test
    void atMostTwentyWords() {
        StringBuilder line = new StringBuilder();
        for (int i = 0; i < 25; i++) {
            line.append('w').append(i).append(' ');
        }
        List<String> w = words(line.toString());
        assertEquals(LineTokenizer.MAX_WORDS, w.size());
        assertEquals("w19", w.get(19));
    }

    @Test
    void nulEndsTheLineAsInC() {
        assertEquals(List.of("SET", "x"), words("SET x\0 = 5"));
        assertEquals(List.of("SET", "x"), words("SET \"x\0\" = 5"));
        assertEquals(List.of(), words("\0SET"));
        assertEquals(List.of("a\\"), words("a\\\0b"), "the escape does not jump over the NUL");
    }

    @Test
    void accessorsForCallers() {
        byte[] b = "SET \"user\" = 0x10".getBytes(StandardCharsets.US_ASCII);
        assertEquals(3, tokenizer.tokenize(b, 0, b.length));
        assertTrue(tokenizer.wordEquals(0, "SET".getBytes(StandardCharsets.US_ASCII)));
        assertFalse(tokenizer.wordEquals(1, "SET".getBytes(StandardCharsets.US_ASCII)));
        assertFalse(tokenizer.wordEquals(5, "SET".getBytes(StandardCharsets.US_ASCII)));
        assertFalse(tokenizer.quoted(0));
        assertTrue(tokenizer.quoted(1));
        assertEquals("user", tokenizer.string(1));
        assertNull(tokenizer.string(3));
        assertEquals(16, tokenizer.parseLong(2));
        assertEquals(0, tokenizer.parseLong(7));
        assertEquals(4, tokenizer.length(1));
        assertEquals(0, tokenizer.length(3));
        assertFalse(tokenizer.isEmpty(2));
        assertTrue(tokenizer.isEmpty(3));
        assertThrows(IndexOutOfBoundsException.class, () -> tokenizer.start(3));

        byte[] gap = "SET \"x\" = ".getBytes(StandardCharsets.US_ASCII);
        assertEquals(2, tokenizer.tokenize(gap, 0, gap.length));
        assertTrue(tokenizer.isEmpty(2), "SET with an empty value leaves the dimension unset");
        byte[] emptyQuoted = "SET \"x\" = \"\"".getBytes(StandardCharsets.US_ASCII);
        assertEquals(3, tokenizer.tokenize(emptyQuoted, 0, emptyQuoted.length));
        assertTrue(tokenizer.isEmpty(2));
    }
}
