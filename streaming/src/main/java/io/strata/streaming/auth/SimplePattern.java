package io.strata.streaming.auth;

import java.util.ArrayList;
import java.util.List;

/**
 * Netdata's "simple patterns" ({@code libnetdata/simple_pattern}, 1.37.1), as used by {@code allow from}
 * and {@code send charts matching}: a list of globs separated by white space; {@code *} matches any
 * run of characters; a leading {@code !} makes a glob negative; a backslash escapes the next character
 * (so {@code \ } is a literal space); the first glob that matches decides (positive: match, negative:
 * no match); nothing matching means no match; the empty string never matches. Matching is
 * case-sensitive. Globs without {@code *} must match the whole text.
 *
 * <p>The matcher reproduces Netdata's algorithm, including its corners: a glob is cut at each inner
 * {@code *} and each piece is searched left to right without backtracking, and runs of {@code *}
 * are not collapsed the way a regular-expression glob would be ({@code a**b} matches text that starts
 * with {@code a} and ends with {@code *b}). Immutable and thread-safe.
 */
public final class SimplePattern {

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

    /** Parses a pattern list; never fails ({@code null} is the empty list). */
    public static SimplePattern parse(String list) {
        String source = list == null ? "" : list;
        List<Glob> globs = new ArrayList<>();
        int length = source.length();
        int i = 0;
        StringBuilder word = new StringBuilder();
        while (i < length) {
            while (i < length && isSeparator(source.charAt(i))) {
                i++;
            }
            boolean negative = false;
            if (i < length && source.charAt(i) == '!') {
                negative = true;
                i++;
            }
            if (i >= length) {
                break;
            }
            word.setLength(0);
            boolean escaped = false;
            while (i < length) {
                char c = source.charAt(i);
                if (c == '\\' && !escaped) {
                    escaped = true;
                    i++;
                    continue;
                }
                if (isSeparator(c) && !escaped) {
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
        return new SimplePattern(source, globs);
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
     * True when the list has no glob (empty or only white space / lone {@code !}). Netdata treats such
     * an {@code allow from} as "no restriction" (it skips the check), although {@link #matches} is
     * false for every text.
     */
    public boolean isEmpty() {
        return globs.isEmpty();
    }

    /** The text this pattern was parsed from. */
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

    /** Netdata's default separators: space, \t, \r, \n, \f, \v. */
    private static boolean isSeparator(char c) {
        return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\f' || c == 0x0B;
    }
}
