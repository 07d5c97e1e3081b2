package io.strata.replication.sender;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.strata.engine.page.StorageNumber;
import io.strata.streaming.sender.SenderWireFormat;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** The array-formatted replicated point is byte for byte what {@link SenderWireFormat} writes field by field. */
class ReplayPointWriterTest {

    @Test
    void sameBytesAsTheFieldByFieldFormatForManyValues() {
        SplittableRandom rnd = new SplittableRandom(5);
        byte[][] ids = {"user".getBytes(StandardCharsets.UTF_8), "a-much-longer-dimension-id-é".getBytes(StandardCharsets.UTF_8),
                "".getBytes(StandardCharsets.UTF_8)};
        ReplayPointWriter writer = new ReplayPointWriter();
        ByteBuf expected = Unpooled.buffer();
        ByteBuf actual = Unpooled.buffer();
        for (int point = 0; point < 20_000; point++) {
            long start = 1_700_000_000L + point;
            long wall = point % 97 == 0 ? -1L : start + 3; // an unsigned wall clock too
            SenderWireFormat.replayPoint(expected, start, start + 1, wall);
            writer.begin(start, start + 1, wall, ids.length, 40);
            for (byte[] id : ids) {
                int sn = storageNumber(rnd);
                if (sn == StorageNumber.SN_EMPTY_SLOT) {
                    SenderWireFormat.replaySetEmpty(expected, id);
                    writer.empty(id);
                } else {
                    SenderWireFormat.replaySetStorageNumber(expected, id, sn);
                    writer.set(actual, id, sn);
                }
            }
            writer.drainTo(actual);
        }
        assertEquals(expected.toString(StandardCharsets.UTF_8), actual.toString(StandardCharsets.UTF_8));
    }

    @Test
    void everyExponentAndSignOfAStorageNumberPrintsAsItsDouble() {
        byte[] id = "d".getBytes(StandardCharsets.UTF_8);
        ByteBuf expected = Unpooled.buffer();
        ByteBuf actual = Unpooled.buffer();
        ReplayPointWriter writer = new ReplayPointWriter();
        int[] flagSets = {0, StorageNumber.SN_FLAG_NEGATIVE, StorageNumber.SN_FLAG_MULTIPLY,
                StorageNumber.SN_FLAG_MULTIPLY | StorageNumber.SN_FLAG_NEGATIVE, StorageNumber.SN_FLAG_RESET,
                StorageNumber.SN_FLAG_NOT_EXISTS_MUL100 | StorageNumber.SN_FLAG_MULTIPLY};
        for (int flags : flagSets) {
            for (int k = 0; k < 8; k++) {
                for (int mantissa = 0; mantissa <= StorageNumber.SN_MANTISSA_MASK; mantissa += mantissa < 2000 ? 1 : 7919) {
                    int sn = flags | (k << StorageNumber.SN_EXPONENT_SHIFT) | mantissa;
                    expected.clear();
                    actual.clear();
                    SenderWireFormat.replaySetStorageNumber(expected, id, sn);
                    writer.begin(1, 2, 3, 1, 1);
                    writer.drainTo(Unpooled.buffer()); // drop the RBEGIN line: only the RSET is compared
                    writer.set(actual, id, sn);
                    writer.drainTo(actual);
                    assertEquals(expected.toString(StandardCharsets.UTF_8), actual.toString(StandardCharsets.UTF_8),
                            "storage number 0x" + Integer.toHexString(sn));
                }
            }
        }
    }

    @Test
    void decimalDigitsOfEveryMagnitude() {
        java.util.List<Long> values = new java.util.ArrayList<>(java.util.List.of(0L, Long.MAX_VALUE));
        for (long p = 1; p > 0 && p <= Long.MAX_VALUE / 10; p *= 10) {
            values.addAll(java.util.List.of(p - 1, p, p + 1, p * 10 - 1));
        }
        for (int bit = 0; bit < 63; bit++) {
            values.addAll(java.util.List.of((1L << bit) - 1, 1L << bit, (1L << bit) + 1));
        }
        SplittableRandom rnd = new SplittableRandom(9);
        for (int i = 0; i < 10_000; i++) {
            values.add(rnd.nextLong(Long.MAX_VALUE) >>> rnd.nextInt(63));
        }
        byte[] dst = new byte[40];
        for (long v : values) {
            int end = SenderWireFormat.positive(dst, 3, v);
            assertEquals(Long.toString(v), new String(dst, 3, end - 3, StandardCharsets.US_ASCII));
        }
    }

    @Test
    void aValueBeyondTwoToTheSixtyThirdKeepsItsPlaceInTheLine() {
        ByteBuf expected = Unpooled.buffer();
        ByteBuf actual = Unpooled.buffer();
        byte[] id = "big".getBytes(StandardCharsets.UTF_8);
        byte[] other = "small".getBytes(StandardCharsets.UTF_8);
        int big = StorageNumber.pack(1e20, 0);
        int small = StorageNumber.pack(2.5, 0);
        SenderWireFormat.replayPoint(expected, 10, 11, 12);
        SenderWireFormat.replaySetStorageNumber(expected, other, small);
        SenderWireFormat.replaySetStorageNumber(expected, id, big);
        SenderWireFormat.replaySetStorageNumber(expected, other, small);
        ReplayPointWriter writer = new ReplayPointWriter();
        writer.begin(10, 11, 12, 3, 5);
        writer.set(actual, other, small);
        writer.set(actual, id, big);
        writer.set(actual, other, small);
        writer.drainTo(actual);
        assertEquals(expected.toString(StandardCharsets.UTF_8), actual.toString(StandardCharsets.UTF_8));
    }

    private static int storageNumber(SplittableRandom rnd) {
        switch (rnd.nextInt(8)) {
            case 0:
                return StorageNumber.SN_EMPTY_SLOT;
            case 1:
                return StorageNumber.pack(-rnd.nextDouble() * 1e6, 0);
            case 2:
                return StorageNumber.pack(rnd.nextLong(1_000_000_000L) / 1000.0, StorageNumber.SN_FLAG_RESET);
            case 3:
                return rnd.nextInt(); // any bit pattern a datafile may hold
            default:
                return StorageNumber.pack(rnd.nextInt(100_000) / 1000.0, 0);
        }
    }
}
