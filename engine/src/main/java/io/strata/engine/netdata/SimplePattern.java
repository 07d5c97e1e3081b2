package io.strata.engine.netdata;

import java.util.ArrayList;
import java.util.List;

/**
 * Netdata's "simple patterns" ({@code libnetdata/simple_pattern/simple_pattern.c}, 1.37.1), the one
 * matcher for everything Netdata reads as a pattern list: {@code allow from}, {@code send charts
 * matching} and the other netdata.conf / stream.conf / exporting.conf lists, and the query API's
 * {@code dimensions=}, {@code context=}, {@code chart=}, {@code chart_label_key=},
 * {@code chart_labels_filter=} and {@code filter=} parameters.
 *
 * <p>A list is cut into globs at separator characters; which characters separate is the caller's
 * choice, as it is the second argument of Netdata's {@code simple_pattern_create}:
 * <ul>
 *   <li>{@link #CONFIG_SEPARATORS} (Netdata's default, {@code NULL}): white space. Configuration
 *       lists and the API's {@code allmetrics?filter=} use it.</li>
 *   <li>{@link #API_SEPARATORS} ({@code ",|\t\r\n\f\v"}): the data and contexts API, where a space
 *       belongs to a name ({@code dimensions=user|system}, {@code dimensions=a b} is one name).</li>
 * </ul>
 *
 * <p>In a glob, {@code *} matches any run of characters; a leading {@code !} makes the glob negative;
 * a backslash escapes the next character ({@code \ } is a literal space, {@code \!} a literal
 * {@code !}). The first glob that matches decides (positive: match, negative: no match); nothing
 * matching means no match; the empty text never matches. Matching is case-sensitive (1.37.1 has no
 * case-insensitive mode). A list without globs (empty, only separators, a lone {@code !}) is
 * {@linkplain #isEmpty() empty}: it matches nothing, and Netdata's callers read it as "no filter"
 * (Netdata's {@code simple_pattern_create} returns {@code NULL} for it; the caller decides).
 *
 * <p>The matcher reproduces Netdata's algorithm, including its corners: a glob is cut at each inner
 * {@code *} and each piece is searched left to right without backtracking, and runs of {@code *} are
 * not collapsed the way a regular-expression glob would be ({@code a**b} matches text that starts with
 * {@code a} and ends with {@code *b}; {@code **a} matches text ending in {@code *a}). Immutable and
 * thread-safe.
 */
public final class SimplePattern {

    /** Netdata's default separators (white space: space, \t, \r, \n, \f, \v), for configuration lists. */
    public static final String CONFIG_SEPARATORS = " \t\r\n\f\u000B";

    /** The query API's separators: comma, pipe and control white space, but not the space. */
    public static final String API_SEPARATORS = ",|\t\r\n\f\u000B";

    private static final SimplePattern EMPTY = new SimplePattern("", List.of());

    private enum Mode { EXACT, PREFIX, SUFFIX, SUBSTRING }

    /** One piece of a glob; {@code next} is what must match in the text after this piece. */
    private record Piece(Mode mode, String text, Piece next) {
    }

    private record Glob(boolean negative, Piece first) {
    }

    private final String source;
    private final List<Glob> globs;

    private SimplePattern(String source, List<Glob> globs) {
        this.source = source;
        this.globs = List.copyOf(globs);
    }

    /** A configuration list, globs separated by white space; never fails ({@code null} is the empty list). */
    public static SimplePattern parse(String list) {
        return parse(list, CONFIG_SEPARATORS);
    }

    /**
     * A list whose globs are separated by any character of {@code separators} ({@code null} or empty:
     * {@link #CONFIG_SEPARATORS}, as in Netdata); never fails ({@code null} is the empty list).
     */
    public static SimplePattern parse(String list, String separators) {
        if (list == null || list.isEmpty()) {
            return EMPTY;
        }
        String seps = separators == null || separators.isEmpty() ? CONFIG_SEPARATORS : separators;
        List<Glob> globs = new ArrayList<>();
        int length = list.length();
        int i = 0;
        StringBuilder word = new StringBuilder();
        while (i < length) {
            while (i < length && isSeparator(seps, list.charAt(i))) {
                i++;
            }
            boolean negative = false;
            if (i < length && list.charAt(i) == '!') {
                negative = true;
                i++;
            }
            if (i >= length) {
                break;
            }
            word.setLength(0);
            boolean escaped = false;
            while (i < length) {
                char c = list.charAt(i);
                if (c == '\\' && !escaped) {
                    escaped = true;
                    i++;
                    continue;
                }
                if (isSeparator(seps, c) && !escaped) {
                    i++;
                    break;
                }
                word.append(c);
                escaped = false;
                i++;
            }
            if (word.length() == 0) {
                continue;
            }
            globs.add(new Glob(negative, parseGlob(word.toString())));
        }
        return new SimplePattern(list, globs);
    }

    /** True when the first glob matching {@code text} is positive. Null or empty text: false. */
    public boolean matches(String text) {
        if (text == null || text.isEmpty()) {
            return false;
        }
        for (Glob glob : globs) {
            if (matchFrom(glob.first(), text, 0)) {
                return !glob.negative();
            }
        }
        return false;
    }

    /**
     * True when the list has no glob (empty or only separators / lone {@code !}). Netdata's callers
     * treat such a list as "no restriction" (an {@code allow from} check is skipped, a
     * {@code dimensions=} filter selects everything), although {@link #matches} is false for every
     * text.
     */
    public boolean isEmpty() {
        return globs.isEmpty();
    }

    /**
     * True when every glob is positive and matches every non-empty text ({@code *}, {@code **}): a
     * filter the caller may skip.
     */
    public boolean matchesEverything() {
        if (globs.isEmpty()) {
            return false;
        }
        for (Glob glob : globs) {
            Piece p = glob.first();
            if (glob.negative() || p.mode() != Mode.SUBSTRING || !p.text().isEmpty() || p.next() != null) {
                return false;
            }
        }
        return true;
    }

    /** The text this pattern was parsed from ({@code ""} for {@code null}). */
    public String source() {
        return source;
    }

    @Override
    public String toString() {
        return "SimplePattern[" + source + "]";
    }

    /*
     * Netdata splits a glob at the first '*' that follows some literal text and has something after
     * it; the part before (with that '*') is one piece, the rest is parsed again as the next piece.
     */
    private static Piece parseGlob(String glob) {
        int c = 0;
        int length = glob.length();
        while (c < length && glob.charAt(c) == '*') {
            c++;
        }
        while (c < length && glob.charAt(c) != '*') {
            c++;
        }
        Piece next = null;
        String own = glob;
        if (c < length && c + 1 < length) {
            next = parseGlob(glob.substring(c));
            own = glob.substring(0, c + 1);
        }

        Mode mode;
        String text = own;
        int ownLength = own.length();
        if (ownLength >= 2 && own.charAt(0) == '*' && own.charAt(ownLength - 1) == '*') {
            text = own.substring(1, ownLength - 1);
            mode = Mode.SUBSTRING;
        } else if (ownLength >= 1 && own.charAt(0) == '*') {
            text = own.substring(1);
            mode = Mode.SUFFIX;
        } else if (ownLength >= 1 && own.charAt(ownLength - 1) == '*') {
            text = own.substring(0, ownLength - 1);
            mode = Mode.PREFIX;
        } else {
            mode = Mode.EXACT;
        }
        if (text.isEmpty()) {
            mode = Mode.SUBSTRING;
        }
        return new Piece(mode, text, next);
    }

    private static boolean matchFrom(Piece piece, String subject, int from) {
        int remaining = subject.length() - from;
        String text = piece.text();
        if (text.length() > remaining) {
            return false;
        }
        switch (piece.mode()) {
            case SUBSTRING: {
                if (text.isEmpty()) {
                    return true;
                }
                int found = subject.indexOf(text, from);
                if (found < 0) {
                    return false;
                }
                return piece.next() == null || matchFrom(piece.next(), subject, found + text.length());
            }
            case PREFIX:
                if (!subject.startsWith(text, from)) {
                    return false;
                }
                return piece.next() == null || matchFrom(piece.next(), subject, from + text.length());
            case SUFFIX:
                // a suffix ends the text, so a further piece could never match after it
                return subject.endsWith(text) && piece.next() == null;
            case EXACT:
            default:
                return subject.length() - from == text.length() && subject.startsWith(text, from)
                        && piece.next() == null;
        }
    }

    private static boolean isSeparator(String separators, char c) {
        return separators.indexOf(c) >= 0;
    }
}
