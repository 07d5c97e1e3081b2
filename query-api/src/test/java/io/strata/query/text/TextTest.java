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
}
