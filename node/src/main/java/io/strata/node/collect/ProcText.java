package io.strata.node.collect;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * The lines and words of a kernel text file, found in place: only word offsets are recorded
 * (in arrays reused from pass to pass) and numbers are parsed straight from the bytes, so that
 * parsing allocates nothing once the arrays have grown to the file's size.
 */
public final class ProcText {

    private final boolean[] separator = new boolean[256];
    private byte[] b = new byte[0];
    private int lines;
    private int[] lineFirstWord = new int[64];
    private int[] lineWordCount = new int[64];
    private int[] wordStart = new int[512];
    private int[] wordEnd = new int[512];

    /** {@code separators}: the characters besides newline that end a word (e.g. " \t:"). */
    public ProcText(String separators) {
        for (char c : separators.toCharArray()) {
            separator[c & 0xff] = true;
        }
    }

    public ProcText parse(ProcFile f) {
        return parse(f.bytes(), f.length());
    }

    public ProcText parse(byte[] bytes, int length) {
        b = bytes;
        lines = 0;
        int words = 0;
        int i = 0;
        while (i < length) {
            if (lines == lineFirstWord.length) {
                lineFirstWord = Arrays.copyOf(lineFirstWord, lines * 2);
                lineWordCount = Arrays.copyOf(lineWordCount, lines * 2);
            }
            lineFirstWord[lines] = words;
            int inLine = 0;
            while (i < length && bytes[i] != '\n') {
                if (separator[bytes[i] & 0xff]) {
                    i++;
                    continue;
                }
                int s = i;
                while (i < length && bytes[i] != '\n' && !separator[bytes[i] & 0xff]) {
                    i++;
                }
                if (words == wordStart.length) {
                    wordStart = Arrays.copyOf(wordStart, words * 2);
                    wordEnd = Arrays.copyOf(wordEnd, words * 2);
                }
                wordStart[words] = s;
                wordEnd[words] = i;
                words++;
                inLine++;
            }
            lineWordCount[lines] = inLine;
            lines++;
            i++; // past the newline
        }
        return this;
    }

    public int lines() {
        return lines;
    }

    public int words(int line) {
        return lineWordCount[line];
    }

    public byte[] bytes() {
        return b;
    }

    public int start(int line, int word) {
        return wordStart[lineFirstWord[line] + word];
    }

    public int end(int line, int word) {
        return wordEnd[lineFirstWord[line] + word];
    }

    public int length(int line, int word) {
        int w = lineFirstWord[line] + word;
        return wordEnd[w] - wordStart[w];
    }

    /** True when the word is exactly {@code ascii}. */
    public boolean is(int line, int word, byte[] ascii) {
        if (word >= lineWordCount[line]) {
            return false;
        }
        int w = lineFirstWord[line] + word;
        return Arrays.equals(b, wordStart[w], wordEnd[w], ascii, 0, ascii.length);
    }

    /** True when the word begins with {@code ascii}. */
    public boolean startsWith(int line, int word, byte[] ascii) {
        if (word >= lineWordCount[line]) {
            return false;
        }
        int w = lineFirstWord[line] + word;
        return wordEnd[w] - wordStart[w] >= ascii.length
                && Arrays.equals(b, wordStart[w], wordStart[w] + ascii.length, ascii, 0, ascii.length);
    }

    /** The first line whose first word is {@code ascii}, or -1. */
    public int findLine(byte[] ascii) {
        for (int l = 0; l < lines; l++) {
            if (is(l, 0, ascii)) {
                return l;
            }
        }
        return -1;
    }

    /**
     * The word as a decimal integer (leading digits; a leading '-' allowed), 0 when it has none or
     * the word does not exist. Values over Long.MAX_VALUE (unsigned 64-bit counters) wrap, as
     * Netdata's collected_number does.
     */
    /**
     * For files of {@code key value} lines (meminfo, vmstat): the value of each of {@code keys},
     * and whether its line was there (values of missing keys are 0). The first line of a key wins.
     */
    public void keyedValues(byte[][] keys, long[] values, boolean[] found) {
        Arrays.fill(values, 0);
        Arrays.fill(found, false);
        for (int l = 0; l < lines(); l++) {
            if (words(l) < 2) {
                continue;
            }
            for (int k = 0; k < keys.length; k++) {
                if (!found[k] && is(l, 0, keys[k])) {
                    values[k] = longAt(l, 1);
                    found[k] = true;
                    break;
                }
            }
        }
    }

    public long longAt(int line, int word) {
        if (word >= lineWordCount[line]) {
            return 0;
        }
        int w = lineFirstWord[line] + word;
        return parseLong(b, wordStart[w], wordEnd[w]);
    }

    /** The word as a decimal fraction times {@code scale} (e.g. "0.98" at 1000 is 980), truncated. */
    public long scaledAt(int line, int word, long scale) {
        if (word >= lineWordCount[line]) {
            return 0;
        }
        int w = lineFirstWord[line] + word;
        return parseScaled(b, wordStart[w], wordEnd[w], scale);
    }

    /** The word as a String (allocates: for names seen when a chart is defined, not per pass). */
    public String string(int line, int word) {
        int w = lineFirstWord[line] + word;
        return new String(b, wordStart[w], wordEnd[w] - wordStart[w], StandardCharsets.UTF_8);
    }

    static long parseLong(byte[] b, int s, int e) {
        boolean negative = s < e && b[s] == '-';
        int i = negative ? s + 1 : s;
        long v = 0;
        for (; i < e; i++) {
            int d = b[i] - '0';
            if (d < 0 || d > 9) {
                break;
            }
            v = v * 10 + d;
        }
        return negative ? -v : v;
    }

    static long parseScaled(byte[] b, int s, int e, long scale) {
        boolean negative = s < e && b[s] == '-';
        int i = negative ? s + 1 : s;
        long whole = 0;
        for (; i < e && b[i] >= '0' && b[i] <= '9'; i++) {
            whole = whole * 10 + (b[i] - '0');
        }
        long v = whole * scale;
        if (i < e && b[i] == '.') {
            long place = scale;
            for (i++; i < e && b[i] >= '0' && b[i] <= '9' && place > 1; i++) {
                place /= 10;
                v += (b[i] - '0') * place;
            }
        }
        return negative ? -v : v;
    }
}
