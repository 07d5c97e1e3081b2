package io.strata.streaming.wire;

/**
 * Splits one protocol line into words exactly as Netdata 1.37.1 does for plugins.d and streaming
 * ({@code pluginsd_split_words} over {@code quoted_strings_splitter}), without allocating: word
 * {@code i} is {@code line[wordStart[i] .. wordEnd[i])} of the array last given to {@link #tokenize}.
 *
 * <ul>
 *   <li>Separators are runs of space, TAB, CR, LF and {@code '='}.</li>
 *   <li>A word that starts with {@code "} or {@code '} runs to the next same quote, separators included;
 *       the quotes are not part of the word, and the closing quote also ends the word when a letter
 *       follows it directly ({@code "a"b} is {@code a}, {@code b}). {@code ""} is an empty word. A quote
 *       anywhere else in a word is an ordinary byte.</li>
 *   <li>Without a closing quote the word runs to the end of the line.</li>
 *   <li>A backslash followed by any byte makes the scan step over that byte (inside or outside
 *       quotes), so {@code \"} does not close a quote and {@code a\ b} is one word; the backslash stays
 *       in the word, nothing is unescaped.</li>
 *   <li>At most {@link #MAX_WORDS} words; the rest of the line is ignored.</li>
 *   <li>A NUL byte ends the line, as it ends the C string Netdata parses.</li>
 *   <li>A blank line gives 0 words (Netdata skips it before splitting).</li>
 * </ul>
 *
 * <p>Netdata looks the keyword up as the first run of non-separator bytes, quotes included, so a line
 * whose first word is quoted names no known keyword there: {@link #quoted(int)} lets the caller do the
 * same. Differences: Netdata hands the splitter the line with its {@code '\n'}, which only shows in the
 * last word of a line with an unclosed quote (it ends with {@code '\n'} there, not here).
 *
 * <p>Not thread-safe; reuse one instance per connection.
 */
public final class LineTokenizer {
    /** PLUGINSD_MAX_WORDS. */
    public static final int MAX_WORDS = 20;

    /** Start of each word (inclusive) in the last tokenized array; valid for indexes below {@link #count()}. */
    public final int[] wordStart = new int[MAX_WORDS];
    /** End of each word (exclusive). */
    public final int[] wordEnd = new int[MAX_WORDS];
    private final boolean[] wordQuoted = new boolean[MAX_WORDS];
    private byte[] line;
    private int count;

    /** Splits {@code b[start .. end)}; returns the number of words (0..{@link #MAX_WORDS}). */
    public int tokenize(byte[] b, int start, int end) {
        line = b;
        count = 0;
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
            if (quote == 0) {
                // the bytes that merely continue an unquoted word, at one table look-up each
                while (i < end && CLASS[b[i] & 0xFF] == 0) {
                    i++;
                }
            } else {
                while (i < end && b[i] != quote && CLASS[b[i] & 0xFF] <= SEPARATOR) {
                    i++;
                }
            }
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
            // the word ends here, at its closing quote or at a separator
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
            if (i >= end || b[i] == 0 || n == MAX_WORDS) {
                break;
            }
            wordStart[n] = i;
            wordQuoted[n] = quote != 0;
            n++;
        }
        count = n;
        return n;
    }

    /** Words found by the last {@link #tokenize}. */
    public int count() {
        return count;
    }

    /** Start of word {@code i}, {@code i < count()}. */
    public int start(int i) {
        return wordStart[checked(i)];
    }

    /** End (exclusive) of word {@code i}, {@code i < count()}. */
    public int end(int i) {
        return wordEnd[checked(i)];
    }

    /** Length of word {@code i}, or 0 when the line has no such word. */
    public int length(int i) {
        return i >= 0 && i < count ? wordEnd[i] - wordStart[i] : 0;
    }

    /** Whether word {@code i} started with a quote. */
    public boolean quoted(int i) {
        return wordQuoted[checked(i)];
    }

    /**
     * Whether word {@code i} is missing or empty: Netdata's {@code !word || !*word}, which many
     * commands treat alike (e.g. {@code SET "x" = } leaves the dimension unset).
     */
    public boolean isEmpty(int i) {
        return i < 0 || i >= count || wordEnd[i] == wordStart[i];
    }

    /** Whether word {@code i} exists and equals the ASCII bytes {@code word}. */
    public boolean wordEquals(int i, byte[] word) {
        return i >= 0 && i < count && AsciiNumbers.equalsAscii(line, wordStart[i], wordEnd[i], word);
    }

    /** Word {@code i} decoded as UTF-8 (for definitions, not the data path), or null when missing. */
    public String string(int i) {
        return i >= 0 && i < count ? AsciiNumbers.string(line, wordStart[i], wordEnd[i]) : null;
    }

    /** Word {@code i} as C {@code strtoll(word, NULL, 0)}; 0 when missing. */
    public long parseLong(int i) {
        return i >= 0 && i < count ? AsciiNumbers.parseLongC(line, wordStart[i], wordEnd[i]) : 0L;
    }

    /** Word {@code i} as C {@code strtod}; 0 when missing. */
    public double parseDouble(int i) {
        return i >= 0 && i < count ? AsciiNumbers.parseDouble(line, wordStart[i], wordEnd[i]) : 0.0;
    }

    private int checked(int i) {
        if (i < 0 || i >= count) {
            throw new IndexOutOfBoundsException("word " + i + " of a line with " + count + " words");
        }
        return i;
    }

    private static boolean isSeparator(byte c) {
        return CLASS[c & 0xFF] == SEPARATOR;
    }

    /** {@link #CLASS} of a byte that ends an unquoted word: space, TAB, CR, LF, '='. */
    private static final byte SEPARATOR = 1;
    /** {@link #CLASS} of a byte the scan must look at inside any word: backslash, NUL. */
    private static final byte SPECIAL = 2;
    /** Each byte's class: 0 for a byte that just continues a word. */
    private static final byte[] CLASS = new byte[256];

    static {
        for (char c : new char[] {' ', '\t', '\r', '\n', '='}) {
            CLASS[c] = SEPARATOR;
        }
        CLASS['\\'] = SPECIAL;
        CLASS[0] = SPECIAL;
    }
}
