package io.strata.streaming.wire;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.function.BiConsumer;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Netdata 2.x's number forms. The expected texts were computed independently of this codec from
 * the rules of Netdata's {@code buffer_print_*_base64/hex} (base64 digits of the value, most
 * significant first; an IEEE754 double's raw bits for {@code @}).
 */
class NetdataNumbersTest {

    @Test
    void unsignedBase64AndHex() {
        assertEquals("#A", write(NetdataNumbers::writeUnsignedBase64, 0L));
        assertEquals("#B", write(NetdataNumbers::writeUnsignedBase64, 1L));
        assertEquals("#/", write(NetdataNumbers::writeUnsignedBase64, 63L));
        assertEquals("#BA", write(NetdataNumbers::writeUnsignedBase64, 64L));
        assertEquals("#BnRWDA", write(NetdataNumbers::writeUnsignedBase64, 1_732_600_000L));
        assertEquals("#GJ8pfibAA", write(NetdataNumbers::writeUnsignedBase64, 1_732_600_000_000_000L));
        assertEquals("#P//////////", write(NetdataNumbers::writeUnsignedBase64, -1L));
        assertEquals("0x0", write(NetdataNumbers::writeUnsignedHex, 0L));
        assertEquals("0x674560C0", write(NetdataNumbers::writeUnsignedHex, 1_732_600_000L));
        assertEquals("0xFFFFFFFFFFFFFFFF", write(NetdataNumbers::writeUnsignedHex, -1L));
        assertEquals("-#B", write(NetdataNumbers::writeSignedBase64, -1L));
        assertEquals("-0x1F", write(NetdataNumbers::writeSignedHex, -31L));
        assertEquals("0x1F", write(NetdataNumbers::writeSignedHex, 31L));
    }

    @Test
    void doublesAsIeee754Base64() {
        assertEquals("@EAVAAAAAAAA", write(NetdataNumbers::writeDoubleBase64, 5.25));
        assertEquals("@A", write(NetdataNumbers::writeDoubleBase64, 0.0));
        assertEquals("@L/4AAAAAAAA", write(NetdataNumbers::writeDoubleBase64, -1.5));
        assertEquals("@EAJIfnwG4Zu", write(NetdataNumbers::writeDoubleBase64, 3.14159));
        assertEquals("@H435DyIAHWc", write(NetdataNumbers::writeDoubleBase64, 1e300));
    }

    @Test
    void doublesAsNetdataDecimals() {
        assertEquals("5.25", write(NetdataNumbers::writeDoubleDecimal, 5.25));
        assertEquals("0", write(NetdataNumbers::writeDoubleDecimal, 0.0));
        assertEquals("-1.5", write(NetdataNumbers::writeDoubleDecimal, -1.5));
        assertEquals("3.14159", write(NetdataNumbers::writeDoubleDecimal, 3.14159));
        assertEquals("0.0000001", write(NetdataNumbers::writeDoubleDecimal, 0.0000001));
        assertEquals("1", write(NetdataNumbers::writeDoubleDecimal, 0.99999999));
        assertEquals("12", write(NetdataNumbers::writeDoubleDecimal, 12.0));
        assertEquals("null", write(NetdataNumbers::writeDoubleDecimal, Double.NaN));
        assertEquals("null", write(NetdataNumbers::writeDoubleDecimal, Double.POSITIVE_INFINITY));
        assertEquals("1e+20", write(NetdataNumbers::writeDoubleDecimal, 1e20));
    }

    @Test
    void readsEveryForm() {
        assertEquals(1_732_600_000L, unsigned("#BnRWDA"));
        assertEquals(1_732_600_000L, unsigned("0x674560C0"));
        assertEquals(1_732_600_000L, unsigned("0x674560c0"));
        assertEquals(1_732_600_000L, unsigned("1732600000"));
        assertEquals(-1L, unsigned("#P//////////"));
        assertEquals(0L, unsigned(""));
        assertEquals(-1L, signed("-#B"));
        assertEquals(-31L, signed("-0x1F"));
        assertEquals(-31L, signed("-31"));
        assertEquals(5.25, dbl("@EAVAAAAAAAA"));
        assertEquals(5.25, dbl("%4015000000000000"));
        assertEquals(5.25, dbl("5.25"));
        assertEquals(-1.5, dbl("@L/4AAAAAAAA"));
        assertEquals(-64.0, dbl("-#BA"));
        assertEquals(255.0, dbl("0xFF"));
        assertEquals(1.8446744073709552E19, dbl("#P//////////"));
        assertEquals(Double.NaN, dbl("null"));
        assertEquals(Double.NaN, dbl("NAN"));
        assertEquals(Double.NaN, dbl("nan"));
    }

    @Test
    void everyDoubleSurvivesBase64() {
        double[] samples = {0.0, -0.0, 1.0, -1.0, 0.1, Double.MIN_VALUE, Double.MAX_VALUE, Double.NaN,
                Double.NEGATIVE_INFINITY, 123456789.123456789, -2.5e-300};
        for (double d : samples) {
            String text = write(NetdataNumbers::writeDoubleBase64, d);
            byte[] b = text.getBytes(StandardCharsets.US_ASCII);
            assertEquals(Double.doubleToRawLongBits(d),
                    Double.doubleToRawLongBits(NetdataNumbers.parseDouble(b, 0, b.length)), text);
        }
        long[] longs = {0, 1, -1, Long.MAX_VALUE, Long.MIN_VALUE + 1, 1_732_600_000_123_456L, -42};
        for (long v : longs) {
            String text = write(NetdataNumbers::writeSignedBase64, v);
            assertEquals(v, signed(text), text);
            String hex = write(NetdataNumbers::writeSignedHex, v);
            assertEquals(v, signed(hex), hex);
        }
    }

    @Test
    void readingStopsAtTheFirstByteThatIsNoDigit() {
        byte[] b = "#BA,x".getBytes(StandardCharsets.US_ASCII);
        assertEquals(64L, NetdataNumbers.parseUnsigned(b, 0, b.length));
        byte[] h = "0x1G".getBytes(StandardCharsets.US_ASCII);
        assertEquals(1L, NetdataNumbers.parseUnsigned(h, 0, h.length));
    }

    private static <T> String write(BiConsumer<ByteBuf, T> writer, T value) {
        ByteBuf out = Unpooled.buffer();
        try {
            writer.accept(out, value);
            return out.toString(StandardCharsets.US_ASCII);
        } finally {
            out.release();
        }
    }

    private static long unsigned(String s) {
        byte[] b = s.getBytes(StandardCharsets.US_ASCII);
        return NetdataNumbers.parseUnsigned(b, 0, b.length);
    }

    private static long signed(String s) {
        byte[] b = s.getBytes(StandardCharsets.US_ASCII);
        return NetdataNumbers.parseSigned(b, 0, b.length);
    }

    private static double dbl(String s) {
        byte[] b = s.getBytes(StandardCharsets.US_ASCII);
        return NetdataNumbers.parseDouble(b, 0, b.length);
    }
}
