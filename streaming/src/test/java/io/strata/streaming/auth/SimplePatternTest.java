package io.strata.streaming.auth;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class SimplePatternTest {

    private static boolean m(String pattern, String text) {
        return SimplePattern.parse(pattern).matches(text);
    }

    @Test
    void starMatchesEverythingButTheEmptyString() {
        assertTrue(m("*", "10.0.0.1"));
        assertTrue(m("*", "x"));
        assertFalse(m("*", ""));
        assertFalse(m("*", null));
        assertTrue(m("**", "anything"));
    }

    @Test
    void withoutStarTheWholeTextMustMatch() {
        assertTrue(m("127.0.0.1", "127.0.0.1"));
        assertFalse(m("127.0.0.1", "127.0.0.10"));
        assertFalse(m("127.0.0.1", "x127.0.0.1"));
        assertFalse(m("LOCALHOST", "localhost"), "case-sensitive");
    }

    @Test
    void prefixSuffixSubstringAndInnerStars() {
        assertTrue(m("10.*", "10.1.2.3"));
        assertFalse(m("10.*", "110.1.2.3"));
        assertTrue(m("*.1", "192.168.0.1"));
        assertFalse(m("*.1", "192.168.0.10"));
        assertTrue(m("*168*", "192.168.0.1"));
        assertFalse(m("*168*", "192.169.0.1"));
        assertTrue(m("192.*.1", "192.168.0.1"));
        assertFalse(m("192.*.1", "192.168.0.2"));
        assertTrue(m("a*b*c", "axxbyyc"));
        assertTrue(m("a*b*c", "abc"));
        assertFalse(m("a*b*c", "acb"));
        assertTrue(m("x*y", "xy"));
        assertTrue(m("system.*", "system.cpu"));
        assertTrue(m("*cpu*", "system.cpu"));
    }

    @Test
    void firstMatchingGlobDecides() {
        SimplePattern p = SimplePattern.parse("!10.0.0.66 10.*");
        assertFalse(p.matches("10.0.0.66"));
        assertTrue(p.matches("10.0.0.67"));
        assertFalse(p.matches("11.0.0.1"), "no glob matches: no match");
        // order matters: the positive glob first wins over the later negative one
        assertTrue(m("10.* !10.0.0.66", "10.0.0.66"));
        assertFalse(m("!*", "anything"));
        assertTrue(m("!apps.* *", "system.cpu"));
        assertFalse(m("!apps.* *", "apps.cpu"));
    }

    @Test
    void separatorsAndEscapes() {
        SimplePattern p = SimplePattern.parse("  a \t b\nc\r\fd\u000Be  ");
        for (String s : new String[] {"a", "b", "c", "d", "e"}) {
            assertTrue(p.matches(s), s);
        }
        assertTrue(m("a\\ b", "a b"), "backslash escapes the space");
        assertFalse(m("a\\ b", "a"));
        assertTrue(m("\\!x", "!x"), "an escaped ! is literal");
        assertTrue(m("a\\\\b", "a\\b"));
        assertTrue(m("! b", "b"), "a lone '!' is skipped, 'b' stays positive");
    }

    @Test
    void emptyListsAreEmptyAndMatchNothing() {
        for (String list : new String[] {"", "   ", "!", " ! ", null}) {
            SimplePattern p = SimplePattern.parse(list);
            assertTrue(p.isEmpty(), "'" + list + "'");
            assertFalse(p.matches("10.0.0.1"));
        }
        assertFalse(SimplePattern.parse("*").isEmpty());
        assertEquals("10.* !x", SimplePattern.parse("10.* !x").source());
    }

    @Test
    void netdatasCornersAreKept() {
        // runs of stars are not collapsed: the second '*' is literal text of a suffix
        assertTrue(m("a**b", "a*b"));
        assertTrue(m("a**b", "axx*b"));
        assertFalse(m("a**b", "ab"));
        // a leading run of stars makes the rest a suffix that starts with '*'
        assertTrue(m("**x", "a*x"));
        assertFalse(m("**x", "ax"));
        // "*x*" then "y": the first 'x' is taken, no backtracking, but a suffix is always at the end
        assertTrue(m("*x*y", "xaxy"));
    }
}
