package io.strata.query.data;

import java.util.ArrayList;
import java.util.List;

/**
 * Netdata's simple patterns: words separated by {@code ,|} and control whitespace (the data API
 * keeps spaces inside words: dimension names may have them), each a glob where
 * {@code *} matches any run of characters; a leading {@code !} makes a word exclude. The first
 * word that matches decides; when none does, the text does not match.
 */
public final class SimplePattern {

    private final String[] words;
    private final boolean[] negative;

    private SimplePattern(List<String> words, List<Boolean> negative) {
        this.words = words.toArray(new String[0]);
        this.negative = new boolean[negative.size()];
        for (int i = 0; i < this.negative.length; i++) {
            this.negative[i] = negative.get(i);
        }
    }

    /** The pattern of {@code text}, or null when it has no words (which Netdata treats as "everything"). */
    public static SimplePattern parse(String text) {
        if (text == null) {
            return null;
        }
        List<String> words = new ArrayList<>();
        List<Boolean> negative = new ArrayList<>();
        int n = text.length();
        int start = 0;
        for (int i = 0; i <= n; i++) {
            if (i == n || SEPARATORS.indexOf(text.charAt(i)) >= 0) {
                if (i > start) {
                    String w = text.substring(start, i);
                    boolean neg = w.charAt(0) == '!';
                    if (neg) {
                        w = w.substring(1);
                    }
                    if (!w.isEmpty()) {
                        words.add(w);
                        negative.add(neg);
                    }
                }
                start = i + 1;
            }
        }
        return words.isEmpty() ? null : new SimplePattern(words, negative);
    }

    private static final String SEPARATORS = ",|\t\r\n\f\u000b";

    /** True when every word is a bare {@code *}: the pattern selects everything. */
    public boolean matchesEverything() {
        for (int i = 0; i < words.length; i++) {
            if (negative[i] || !words[i].equals("*")) {
                return false;
            }
        }
        return true;
    }

    public boolean matches(String s) {
        if (s == null) {
            return false;
        }
        for (int i = 0; i < words.length; i++) {
            if (glob(words[i], s)) {
                return !negative[i];
            }
        }
        return false;
    }

    /** Glob with {@code *} only, iterative with one backtrack point (linear in practice, never exponential). */
    static boolean glob(String p, String s) {
        int pi = 0;
        int si = 0;
        int star = -1;
        int mark = 0;
        while (si < s.length()) {
            if (pi < p.length() && p.charAt(pi) != '*' && p.charAt(pi) == s.charAt(si)) {
                pi++;
                si++;
            } else if (pi < p.length() && p.charAt(pi) == '*') {
                star = pi++;
                mark = si;
            } else if (star >= 0) {
                pi = star + 1;
                si = ++mark;
            } else {
                return false;
            }
        }
        while (pi < p.length() && p.charAt(pi) == '*') {
            pi++;
        }
        return pi == p.length();
    }
}
