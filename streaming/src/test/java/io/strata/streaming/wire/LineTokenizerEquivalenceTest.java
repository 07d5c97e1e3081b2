package io.strata.streaming.wire;

import org.junit.jupiter.api.Test;

import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * {@link LineTokenizer} splits every line exactly as the byte-at-a-time splitter it replaced (kept
 * here as {@link #reference}, Netdata's {@code quoted_strings_splitter} rules one byte at a time):
 * random lines over the bytes that matter (separators, both quotes, backslash, NUL, letters), words
 * compared by start, end and quoting.
 */
class LineTokenizerEquivalenceTest {

    private static final byte[] ALPHABET = {' ', '\t', '\r', '\n', '=', '"', '\'', '\\', 0, 'a', 'S', 'E', 'T', '1', '.'};

    @Test
    void randomLinesSplitAsTheReferenceSplitsThem() {
        SplittableRandom rnd = new SplittableRandom(0x70CE11);
        LineTokenizer tokenizer = new LineTokenizer();
        int[] refStart = new int[LineTokenizer.MAX_WORDS];
        int[] refEnd = new int[LineTokenizer.MAX_WORDS];
        boolean[] refQuoted = new boolean[LineTokenizer.MAX_WORDS];
        byte[] b = new byte[80];
        for (int round = 0; round < 300_000; round++) {
            int len = rnd.nextInt(b.length - 4);
            int s = rnd.nextInt(3);
            for (int i = 0; i < b.length; i++) {
                // mostly ordinary bytes, as real lines are, with every special byte often enough
                b[i] = rnd.nextInt(3) == 0 ? ALPHABET[rnd.nextInt(ALPHABET.length)] : (byte) ('a' + rnd.nextInt(26));
            }
            int e = s + len;
            int n = tokenizer.tokenize(b, s, e);
            int expected = reference(b, s, e, refStart, refEnd, refQuoted);
            assertEquals(expected, n, () -> "words of " + show(b, s, e));
            for (int w = 0; w < n; w++) {
                int word = w;
                assertEquals(refStart[w], tokenizer.start(w), () -> "start of word " + word + " of " + show(b, s, e));
                assertEquals(refEnd[w], tokenizer.end(w), () -> "end of word " + word + " of " + show(b, s, e));
                assertEquals(refQuoted[w], tokenizer.quoted(w), () -> "quoting of word " + word + " of " + show(b, s, e));
            }
        }
    }

    private static String show(byte[] b, int s, int e) {
        StringBuilder sb = new StringBuilder("[");
        for (int i = s; i < e; i++) {
            int c = b[i] & 0xFF;
            sb.append(c >= 0x20 && c < 0x7F && c != '\\' ? String.valueOf((char) c) : String.format("\\x%02x", c));
        }
        return sb.append(']').toString();
    }

    /** The splitter one byte at a time, as LineTokenizer was before its scan used a byte-class table. */
    static int reference(byte[] b, int start, int end, int[] wordStart, int[] wordEnd, boolean[] wordQuoted) {
        int i = start;
        while (i < end && isSeparator(b[i])) {
            i++;
        }
        if (i >= end || b[i] == 0) {
            return 0;
        }
        byte quote = 0;
        if (b[i] == '"' || b[i] == '\'') {
            quote = b[i];
            i++;
        }
        int n = 0;
        wordStart[0] = i;
        wordQuoted[0] = quote != 0;
        n++;
        while (true) {
            if (i >= end || b[i] == 0) {
                wordEnd[n - 1] = i;
                break;
            }
            final byte c = b[i];
            if (c == '\\' && i + 1 < end && b[i + 1] != 0) {
                i += 2;
                continue;
            }
            if (quote != 0 ? c != quote : !isSeparator(c)) {
                i++;
                continue;
            }
            wordEnd[n - 1] = i;
            quote = 0;
            i++;
            while (i < end && isSeparator(b[i])) {
                i++;
            }
            if (i < end && (b[i] == '"' || b[i] == '\'')) {
                quote = b[i];
                i++;
            }
            if (i >= end || b[i] == 0 || n == LineTokenizer.MAX_WORDS) {
                break;
            }
            wordStart[n] = i;
            wordQuoted[n] = quote != 0;
            n++;
        }
        return n;
    }

    private static boolean isSeparator(byte c) {
        return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '=';
    }
}
