package io.strata.query.text;

import java.nio.charset.StandardCharsets;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** Number printing as Netdata's formatters print, JSON escaping, and C's lenient number parsing. */
class TextTest {

    static String num(double v) {
        return new Out(8).number(v).text();
    }

    @Test
    void numbersPrintWithAtMostSevenDecimalsTrimmed() {
        assertEquals("0", num(0));
        assertEquals("0", num(-0.0));
        assertEquals("0", num(0.00000004));
        assertEquals("0.0000001", num(0.00000005));
        assertEquals("31.31313", num(31.313130000001));
        assertEquals("0.5", num(0.5));
        assertEquals("-0.5", num(-0.5));
        assertEquals("100.0000034", num(100.0000034));
        assertEquals("-426697.4696494", num(-426697.4696494));
        assertEquals("1795263112", num(1795263112.0));
        assertEquals("12345678901234", num(12345678901234.0));
        assertEquals("null", num(Double.NaN));
        assertEquals("null", num(Double.POSITIVE_INFINITY));
        assertEquals("1.5", num(1.49999999));
    }

    @Test
    void fixedDecimalsAsAllmetricsPrints() {
        assertEquals("57.9487200", new Out().fixed(57.94872, 7).text());
        assertEquals("0.0000000", new Out().fixed(0, 7).text());
        assertEquals("-948.7500000", new Out().fixed(-948.75, 7).text());
        assertEquals("58", new Out().fixed(57.5, 0).text());
        assertEquals("nan", new Out().fixed(Double.NaN, 7).text());
        assertEquals("1000000000000.0000000", new Out().fixed(1e12, 7).text());
    }

    @Test
    void integersAndPaddedDigits() {
        assertEquals("-9223372036854775808", new Out().integer(Long.MIN_VALUE).text());
        assertEquals("9223372036854775807", new Out().integer(Long.MAX_VALUE).text());
        assertEquals("07", new Out().twoDigits(7).text());
    }

    @Test
    void jsonStringsAreEscapedAndUtf8() {
        Out o = new Out(4);
        o.jsonString("a\"b\\c\nd\u0001\u00e9\u4e2d\ud83d\ude00");
        assertEquals("\"a\\\"b\\\\c\\nd\\u0001\u00e9\u4e2d\ud83d\ude00\"", o.text());
        assertEquals(o.size(), o.text().getBytes(StandardCharsets.UTF_8).length);
        assertEquals("null", new Out().jsonString(null).text());
        assertEquals("\"\\u2028\"", new Out().jsonString("\u2028").text());
    }

    @Test
    void strtolReadsWhatCWouldRead() {
        assertEquals(0, CNumbers.strtol(null));
        assertEquals(0, CNumbers.strtol(""));
        assertEquals(0, CNumbers.strtol("abc"));
        assertEquals(12, CNumbers.strtol(" 12abc"));
        assertEquals(-60, CNumbers.strtol("-60"));
        assertEquals(60, CNumbers.strtol("+60"));
        assertEquals(0, CNumbers.strtol("0x1F"));
        assertEquals(1, CNumbers.strtol("1e5"));
        assertEquals(Long.MAX_VALUE, CNumbers.strtol("9223372036854775808"));
        assertEquals(Long.MIN_VALUE, CNumbers.strtol("-99999999999999999999999"));
    }

    @Test
    void strtodReadsTheNumericPrefix() {
        assertEquals(0.5, CNumbers.strtod("0.5xyz"));
        assertEquals(-3, CNumbers.strtod(" -3"));
        assertEquals(1e5, CNumbers.strtod("1e5"));
        assertEquals(1, CNumbers.strtod("1e"));
        assertEquals(0, CNumbers.strtod(">"));
        assertEquals(0, CNumbers.strtod("."));
        assertEquals(5, CNumbers.strtod("5."));
    }
}
