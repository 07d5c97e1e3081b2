package io.strata.engine.netdata;

import static io.strata.engine.netdata.SimplePattern.API_SEPARATORS;
import static io.strata.engine.netdata.SimplePattern.CONFIG_SEPARATORS;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Netdata 1.37.1's simple patterns. The glob corners hold for every separator set, so those tests run
 * with both; the separator tests show where a configuration list and an API parameter differ.
 */
class SimplePatternTest {

    private static boolean m(String pattern, String text) {
        return SimplePattern.parse(pattern).matches(text);
    }

    private static boolean m(String separators, String pattern, String text) {
        return SimplePattern.parse(pattern, separators).matches(text);
    }

    @ParameterizedTest
    @ValueSource(strings = {CONFIG_SEPARATORS, API_SEPARATORS})
    void starMatchesEverythingButTheEmptyString(String seps) {
        assertTrue(m(seps, "*", "10.0.0.1"));
        assertTrue(m(seps, "*", "x"));
        assertFalse(m(seps, "*", ""));
        assertFalse(m(seps, "*", null));
        assertTrue(m(seps, "**", "anything"));
        assertTrue(SimplePattern.parse("*", seps).matchesEverything());
        assertTrue(SimplePattern.parse("**", seps).matchesEverything());
    }

    @ParameterizedTest
    @ValueSource(strings = {CONFIG_SEPARATORS, API_SEPARATORS})
    void withoutStarTheWholeTextMustMatch(String seps) {
        assertTrue(m(seps, "127.0.0.1", "127.0.0.1"));
        assertFalse(m(seps, "127.0.0.1", "127.0.0.10"));
        assertFalse(m(seps, "127.0.0.1", "x127.0.0.1"));
        assertFalse(m(seps, "LOCALHOST", "localhost"), "case-sensitive");
        assertFalse(m(seps, "User", "user"), "case-sensitive");
    }

    @ParameterizedTest
    @ValueSource(strings = {CONFIG_SEPARATORS, API_SEPARATORS})
    void prefixSuffixSubstringAndInnerStars(String seps) {
        assertTrue(m(seps, "10.*", "10.1.2.3"));
        assertFalse(m(seps, "10.*", "110.1.2.3"));
        assertTrue(m(seps, "*.1", "192.168.0.1"));
        assertFalse(m(seps, "*.1", "192.168.0.10"));
        assertTrue(m(seps, "*168*", "192.168.0.1"));
        assertFalse(m(seps, "*168*", "192.169.0.1"));
        assertTrue(m(seps, "192.*.1", "192.168.0.1"));
        assertFalse(m(seps, "192.*.1", "192.168.0.2"));
        assertTrue(m(seps, "a*b*c", "axxbyyc"));
        assertTrue(m(seps, "a*b*c", "abc"));
        assertTrue(m(seps, "a*b*c", "abxbc"), "the first 'b' is taken and the suffix still ends the text");
        assertFalse(m(seps, "a*b*c", "acb"));
        assertTrue(m(seps, "x*y", "xy"));
        assertTrue(m(seps, "system.*", "system.cpu"));
        assertTrue(m(seps, "*cpu*", "system.cpu"));
        assertTrue(m(seps, "sys*.c*u", "system.cpu"));
        assertFalse(m(seps, "sys*.c*u", "system.load"));
        assertTrue(m(seps, "a**", "a"), "a trailing run of stars matches the empty rest");
    }

    @ParameterizedTest
    @ValueSource(strings = {CONFIG_SEPARATORS, API_SEPARATORS})
    void netdatasCornersAreKept(String seps) {
        // runs of stars are not collapsed: the second '*' is literal text of a suffix
        assertTrue(m(seps, "a**b", "a*b"));
        assertTrue(m(seps, "a**b", "axx*b"));
        assertFalse(m(seps, "a**b", "ab"));
        // a leading run of stars makes the rest a suffix that starts with '*'
        assertTrue(m(seps, "**x", "a*x"));
        assertFalse(m(seps, "**x", "ax"));
        assertFalse(m(seps, "**a", "xxa"), "a backtracking glob would match; Netdata does not");
        // "*x*" then "y": the first 'x' is taken, no backtracking, but a suffix is always at the end
        assertTrue(m(seps, "*x*y", "xaxy"));
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
        assertFalse(SimplePattern.parse("!* *").matchesEverything());
    }

    @Test
    void firstMatchingWordDecidesInTheApi() {
        SimplePattern p = SimplePattern.parse("|user|system", API_SEPARATORS);
        assertTrue(p.matches("user"));
        assertTrue(p.matches("system"));
        assertFalse(p.matches("nice"));
        SimplePattern neg = SimplePattern.parse("!user,*", API_SEPARATORS);
        assertFalse(neg.matches("user"));
        assertTrue(neg.matches("nice"));
        assertFalse(neg.matchesEverything());
    }

    /** The same list read as a configuration list and as an API parameter. */
    @ParameterizedTest(name = "[{0}] in {1}: {2}")
    @CsvSource(delimiter = ';', value = {
        "config; 'a b';            a;         true",
        "api;    'a b';            a;         false",
        "api;    'a b';            'a b';     true",
        "config; 'a b';            'a b';     false",
        "config; 'a|b';            a;         false",
        "config; 'a|b';            'a|b';     true",
        "api;    'a|b';            a;         true",
        "api;    'a|b';            b;         true",
        "config; 'a,b';            'a,b';     true",
        "api;    'a,b';            b;         true",
        "api;    'a\\|b';          'a|b';     true",
        "api;    'a\\,b';          'a,b';     true",
        "config; 'a\\ b';          'a b';     true",
        "api;    '!x* *';          xy;        false",
        "api;    '!x y|*';         'x y';     false",
        "config; '!x y';           y;         true",
        "api;    'a\tb';           b;         true",
        "config; 'a\tb';           b;         true",
    })
    void separatorsDependOnWhereTheListIsRead(String where, String list, String text, boolean expected) {
        String seps = where.equals("api") ? API_SEPARATORS : CONFIG_SEPARATORS;
        assertEquals(expected, m(seps, list, text), where + " '" + list + "' vs '" + text + "'");
    }

    @Test
    void nullOrEmptySeparatorsAreNetdatasDefault() {
        assertTrue(m(null, "a b", "b"));
        assertTrue(m("", "a b", "b"));
        assertTrue(m(";", "a;b", "b"), "any set of characters may separate");
        assertFalse(m(";", "a b", "b"), "a custom set replaces the default one");
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
        assertTrue(m("a\\*", "a*"), "an escaped '*' is still a star: escapes only protect separators and '!'");
        assertTrue(m("a\\*", "abc"));
        assertTrue(m("! b", "b"), "a lone '!' is skipped, 'b' stays positive");
        assertFalse(m("!!x *", "!x"), "the first '!' negates, the second is literal text");
        assertTrue(m("!!x *", "x"));
    }

    @ParameterizedTest
    @ValueSource(strings = {CONFIG_SEPARATORS, API_SEPARATORS})
    void emptyListsAreEmptyAndMatchNothing(String seps) {
        for (String list : new String[] {"", "\t\t", "!", "\t!\t", "|,|", null}) {
            SimplePattern p = SimplePattern.parse(list, seps);
            if (list != null && list.contains("|") && seps.equals(CONFIG_SEPARATORS)) {
                continue; // '|' is a glob in a configuration list
            }
            assertTrue(p.isEmpty(), "'" + list + "'");
            assertFalse(p.matches("10.0.0.1"));
            assertFalse(p.matchesEverything(), "an empty list is no filter, but it matches nothing itself");
        }
        assertFalse(SimplePattern.parse("|,|", CONFIG_SEPARATORS).isEmpty());
        assertTrue(SimplePattern.parse("   ").isEmpty());
        assertFalse(SimplePattern.parse("   ", API_SEPARATORS).isEmpty(), "a space is a name in the API");
        assertFalse(SimplePattern.parse("*").isEmpty());
        assertEquals("10.* !x", SimplePattern.parse("10.* !x").source());
        assertEquals("", SimplePattern.parse(null).source());
    }
}
