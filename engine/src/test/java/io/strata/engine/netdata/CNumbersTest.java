package io.strata.engine.netdata;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class CNumbersTest {

    @Test
    void decimalHexAndOctalLikeBaseZero() {
        assertEquals(16376, CNumbers.strtoul("16376"));
        assertEquals(16376, CNumbers.strtoul("0x3ff8"));
        assertEquals(16376, CNumbers.strtoul("0X3FF8"));
        assertEquals(8, CNumbers.strtoul("010"));
        assertEquals(0, CNumbers.strtoul("0"));
        assertEquals(7, CNumbers.strtoll("+7"));
    }

    @Test
    void stopsAtTheFirstNonDigitAndSkipsLeadingWhiteSpace() {
        assertEquals(42, CNumbers.strtoll("  \t42abc"));
        assertEquals(0, CNumbers.strtoll("abc"));
        assertEquals(0, CNumbers.strtoll(""));
        assertEquals(0, CNumbers.strtoll(null));
        // "0x" without a hex digit after it is the number 0 followed by garbage
        assertEquals(0, CNumbers.strtoul("0xg"));
        // '8' is not an octal digit: "08" reads as 0
        assertEquals(0, CNumbers.strtoul("08"));
        assertEquals(-600, CNumbers.strtol("-600 seconds"));
    }

    @Test
    void unsignedNegationAndSaturation() {
        assertEquals(-1L, CNumbers.strtoul("-1"), "strtoul(\"-1\") is 2^64-1");
        assertEquals(-1L, CNumbers.strtoul("99999999999999999999999"));
        assertEquals(Long.MAX_VALUE, CNumbers.strtoll("99999999999999999999999"));
        assertEquals(Long.MIN_VALUE, CNumbers.strtoll("-99999999999999999999999"));
        assertEquals(Long.MIN_VALUE, CNumbers.strtoll("-9223372036854775808"));
        assertEquals(Long.MAX_VALUE, CNumbers.strtoll("9223372036854775808"));
        assertEquals(-1L, CNumbers.strtoul("18446744073709551615"));
        assertEquals(-1L, CNumbers.strtoul("18446744073709551616"), "one more saturates");
        assertEquals(4294967295L, CNumbers.strtoul("4294967295"));
    }

    @Test
    void cSpaceIsTheSixClassicCharacters() {
        for (char c : new char[] {' ', '\t', '\n', 0x0B, '\f', '\r'}) {
            assertTrue(CNumbers.isCSpace(c), "char " + (int) c);
        }
        assertFalse(CNumbers.isCSpace((char) 0));
        assertFalse(CNumbers.isCSpace('\u00A0'));
        assertFalse(CNumbers.isCSpace((char) 0x1F));
    }

    /** The query API reads its time and count parameters as {@code strtol(s, NULL, 10)}. */
    @Test
    void decimalStrtolReadsWhatCWouldRead() {
        assertEquals(0, CNumbers.strtol(null, 10));
        assertEquals(0, CNumbers.strtol("", 10));
        assertEquals(0, CNumbers.strtol("abc", 10));
        assertEquals(12, CNumbers.strtol(" 12abc", 10));
        assertEquals(-60, CNumbers.strtol("-60", 10));
        assertEquals(60, CNumbers.strtol("+60", 10));
        assertEquals(0, CNumbers.strtol("0x1F", 10), "no hex prefix in base 10");
        assertEquals(10, CNumbers.strtol("010", 10), "no octal prefix in base 10");
        assertEquals(1, CNumbers.strtol("1e5", 10));
        assertEquals(Long.MAX_VALUE, CNumbers.strtol("9223372036854775808", 10));
        assertEquals(Long.MIN_VALUE, CNumbers.strtol("-9223372036854775808", 10));
        assertEquals(Long.MIN_VALUE, CNumbers.strtol("-99999999999999999999999", 10));
    }

    @Test
    void otherBasesAsC() {
        assertEquals(31, CNumbers.strtol("0x1F", 16), "base 16 takes the 0x prefix");
        assertEquals(31, CNumbers.strtol("1f", 16));
        assertEquals(0, CNumbers.strtol("0xg", 16), "0x without a hex digit is the number 0");
        assertEquals(5, CNumbers.strtol("101", 2));
        assertEquals(35, CNumbers.strtol("z", 36));
        assertThrows(IllegalArgumentException.class, () -> CNumbers.strtol("1", 1));
        assertThrows(IllegalArgumentException.class, () -> CNumbers.strtol("1", 37));
    }

    @Test
    void strtodReadsTheNumericPrefix() {
        assertEquals(0.5, CNumbers.strtod("0.5xyz"));
        assertEquals(-3, CNumbers.strtod(" -3"));
        assertEquals(1e5, CNumbers.strtod("1e5"));
        assertEquals(1, CNumbers.strtod("1e"), "an exponent without digits is not read");
        assertEquals(0, CNumbers.strtod(">"));
        assertEquals(0, CNumbers.strtod("."));
        assertEquals(5, CNumbers.strtod("5."));
        assertEquals(0.25, CNumbers.strtod(".25"));
        assertEquals(0, CNumbers.strtod(null));
    }
}
