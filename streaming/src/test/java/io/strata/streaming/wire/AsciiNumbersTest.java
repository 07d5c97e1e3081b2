package io.strata.streaming.wire;

import org.junit.jupiter.api.Test;

import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.Random;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class AsciiNumbersTest {

    private static long strtoll(String s) {
        byte[] b = ("@" + s + "@").getBytes(StandardCharsets.ISO_8859_1);
        return AsciiNumbers.parseLongC(b, 1, b.length - 1);
    }

    private static double strtod(String s) {
        byte[] b = ("@" + s + "@").getBytes(StandardCharsets.ISO_8859_1);
        return AsciiNumbers.parseDouble(b, 1, b.length - 1);
    }

    private static void assertSameDouble(double expected, double actual, String input) {
        assertEquals(Double.doubleToRawLongBits(expected), Double.doubleToRawLongBits(actual),
                "strtod(\"" + input + "\") expected " + expected + " got " + actual);
    }

    @Test
    void strtollDecimal() {
        assertEquals(0, strtoll("0"));
        assertEquals(12345, strtoll("12345"));
        assertEquals(-12345, strtoll("-12345"));
        assertEquals(7, strtoll("+7"));
        assertEquals(42, strtoll(" \t\n\u000b\f\r42"));
        assertEquals(15, strtoll("15abc"));
        assertEquals(1, strtoll("1.9"));
        assertEquals(1795263100L, strtoll("1795263100"));
    }

    @Test
    void strtollBaseZeroPrefixes() {
        assertEquals(16, strtoll("0x10"));
        assertEquals(255, strtoll("0XfF"));
        assertEquals(-16, strtoll("-0x10"));
        assertEquals(8, strtoll("010"));
        assertEquals(-8, strtoll("-010"));
        assertEquals(0, strtoll("08"), "8 is no octal digit: only the 0 converts");
        assertEquals(7, strtoll("0789"));
        assertEquals(0, strtoll("0x"), "0x without a hex digit is 0 followed by garbage");
        assertEquals(0, strtoll("0xg1"));
        assertEquals(0, strtoll("00"));
    }

    @Test
    void strtollNoDigits() {
        assertEquals(0, strtoll(""));
        assertEquals(0, strtoll("   "));
        assertEquals(0, strtoll("-"));
        assertEquals(0, strtoll("+-1"));
        assertEquals(0, strtoll("abc"));
        assertEquals(0, strtoll("- 1"));
        assertEquals(0, strtoll("NAN"));
    }

    @Test
    void strtollDecimalsOfEveryLengthAsWrittenOrWithATail() {
        SplittableRandom rnd = new SplittableRandom(0xD1617);
        for (int round = 0; round < 100_000; round++) {
            int digits = 1 + rnd.nextInt(24);
            StringBuilder sb = new StringBuilder();
            sb.append((char) ('1' + rnd.nextInt(9)));
            for (int i = 1; i < digits; i++) {
                sb.append((char) ('0' + rnd.nextInt(10)));
            }
            BigInteger exact = new BigInteger(sb.toString());
            long expected = exact.bitLength() > 63 ? Long.MAX_VALUE : exact.longValue();
            String tail = switch (rnd.nextInt(4)) {
                case 0 -> "";
                case 1 -> ".5";
                case 2 -> "x";
                default -> " 7";
            };
            assertEquals(expected, strtoll(sb + tail), sb + tail);
        }
    }

    @Test
    void strtollSaturates() {
        assertEquals(Long.MAX_VALUE, strtoll("9223372036854775807"));
        assertEquals(Long.MAX_VALUE, strtoll("9223372036854775808"));
        assertEquals(Long.MAX_VALUE, strtoll("99999999999999999999999999"));
        assertEquals(Long.MIN_VALUE, strtoll("-9223372036854775808"));
        assertEquals(Long.MIN_VALUE, strtoll("-9223372036854775809"));
        assertEquals(Long.MIN_VALUE, strtoll("-99999999999999999999999999"));
        assertEquals(Long.MAX_VALUE, strtoll("0x7fffffffffffffff"));
        assertEquals(Long.MAX_VALUE, strtoll("0xffffffffffffffff"));
        assertEquals(Long.MIN_VALUE, strtoll("-0x8000000000000000"));
        assertEquals(Long.MAX_VALUE, strtoll("01777777777777777777777"));
        assertEquals(Long.MAX_VALUE, strtoll("0777777777777777777777"), "octal 2^63-1");
        assertEquals(Long.MAX_VALUE - 1, strtoll("9223372036854775806"));
    }

    @Test
    void strtollMatchesLongParseLongOnRandomDecimals() {
        Random random = new Random(3);
        for (int i = 0; i < 20_000; i++) {
            long v = random.nextLong() >> random.nextInt(64);
            assertEquals(v, strtoll(Long.toString(v)));
        }
    }

    @Test
    void strtodWhatNetdataSends() {
        assertSameDouble(2.0, strtod("2.0000000"), "2.0000000");
        assertSameDouble(-1.0, strtod("-1.0000000"), "-1.0000000");
        assertSameDouble(78.21782, strtod("78.2178200"), "78.2178200");
        assertSameDouble(32768.0, strtod("32768.0000000"), "32768.0000000");
        assertSameDouble(0.0, strtod("0.0000000"), "0.0000000");
        assertSameDouble(-0.0, strtod("-0.0000000"), "-0.0000000");
        assertSameDouble(12345678901.0, strtod("12345678901.0000000"), "12345678901.0000000");
        assertSameDouble(2.299e9, strtod("2.299e+09"), "2.299e+09");
        assertSameDouble(1795263100.0, strtod("1795263100"), "1795263100");
    }

    @Test
    void strtodNanAndInfinity() {
        for (String nan : new String[] {"NAN", "nan", "-nan", "NaN", " nan", "+nan", "nan(0x1)"}) {
            assertTrue(Double.isNaN(strtod(nan)), nan);
        }
        assertSameDouble(Double.POSITIVE_INFINITY, strtod("inf"), "inf");
        assertSameDouble(Double.POSITIVE_INFINITY, strtod("INFINITY"), "INFINITY");
        assertSameDouble(Double.NEGATIVE_INFINITY, strtod("-Inf"), "-Inf");
        assertSameDouble(Double.POSITIVE_INFINITY, strtod("1e400"), "1e400");
        assertSameDouble(0.0, strtod("na"), "na");
        assertSameDouble(0.0, strtod("in"), "in");
    }

    @Test
    void strtodSyntax() {
        assertSameDouble(0.5, strtod(".5"), ".5");
        assertSameDouble(5.0, strtod("5."), "5.");
        assertSameDouble(1500.0, strtod("1.5e3"), "1.5e3");
        assertSameDouble(1500.0, strtod("1.5E+3"), "1.5E+3");
        assertSameDouble(0.0015, strtod("1.5e-3"), "1.5e-3");
        assertSameDouble(1.5, strtod("1.5e"), "exponent without digits is not consumed");
        assertSameDouble(1.5, strtod("1.5e+"), "1.5e+");
        assertSameDouble(12.0, strtod("  +12abc"), "  +12abc");
        assertSameDouble(0.0, strtod(""), "empty");
        assertSameDouble(0.0, strtod("."), ".");
        assertSameDouble(0.0, strtod("-"), "-");
        assertSameDouble(0.0, strtod("e5"), "e5");
        assertSameDouble(0.0, strtod("-.e1"), "-.e1");
        assertSameDouble(0.0, strtod("1e-400"), "underflow");
        assertSameDouble(0.0, strtod("0e99999999999999"), "0e99999999999999");
        assertSameDouble(1e22, strtod("1e22"), "1e22");
        assertSameDouble(1e23, strtod("1e23"), "1e23 (outside the exact powers)");
        assertSameDouble(123456789012345678901234567890.0, strtod("123456789012345678901234567890"), "30 digits");
        assertSameDouble(0.1, strtod("0.1000000000000000000000000000000001"), "many digits");
        assertSameDouble(9007199254740993.0, strtod("9007199254740993"), "2^53 + 1 rounds to even");
    }

    @Test
    void strtodHexFloats() {
        assertSameDouble(16.0, strtod("0x10"), "0x10");
        assertSameDouble(12.0, strtod("0x1.8p3"), "0x1.8p3");
        assertSameDouble(-0.5, strtod("-0x.8"), "-0x.8");
        assertSameDouble(-0.0, strtod("-0x"), "-0x");
        assertSameDouble(0.0, strtod("0xq"), "0xq");
        assertSameDouble(1.0, strtod("0x1p"), "0x1p");
    }

    @Test
    void strtodIsCorrectlyRoundedOnPrintfOutput() {
        Random random = new Random(17);
        for (int i = 0; i < 50_000; i++) {
            double v = switch (i % 4) {
                case 0 -> random.nextDouble() * 100;
                case 1 -> (random.nextDouble() - 0.5) * 1e9;
                case 2 -> random.nextLong() / 1e7;
                default -> Math.scalb(random.nextDouble(), random.nextInt(120) - 60);
            };
            String printed = String.format(Locale.ROOT, i % 2 == 0 ? "%.7f" : "%.17g", v);
            assertSameDouble(Double.parseDouble(printed), strtod(printed), printed);
        }
    }

    @Test
    void equalsAndStrings() {
        byte[] line = "SET \"sys\" = 1".getBytes(StandardCharsets.US_ASCII);
        assertTrue(AsciiNumbers.equalsAscii(line, 0, 3, "SET".getBytes(StandardCharsets.US_ASCII)));
        assertFalse(AsciiNumbers.equalsAscii(line, 0, 3, "SE".getBytes(StandardCharsets.US_ASCII)));
        assertFalse(AsciiNumbers.equalsAscii(line, 0, 3, "SEX".getBytes(StandardCharsets.US_ASCII)));
        assertTrue(AsciiNumbers.isEmpty(line, 4, 4));
        assertFalse(AsciiNumbers.isEmpty(line, 4, 5));
        byte[] utf8 = "CHART \"température\"".getBytes(StandardCharsets.UTF_8);
        assertEquals("température", AsciiNumbers.string(utf8, 7, utf8.length - 1));
    }
}
