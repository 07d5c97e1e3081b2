package io.strata.streaming.handshake;

import static io.strata.streaming.handshake.Capabilities.BINARY;
import static io.strata.streaming.handshake.Capabilities.CLABELS;
import static io.strata.streaming.handshake.Capabilities.CLAIM;
import static io.strata.streaming.handshake.Capabilities.COMPRESSION;
import static io.strata.streaming.handshake.Capabilities.FUNCTIONS;
import static io.strata.streaming.handshake.Capabilities.HLABELS;
import static io.strata.streaming.handshake.Capabilities.REPLICATION;
import static io.strata.streaming.handshake.Capabilities.V1;
import static io.strata.streaming.handshake.Capabilities.V2;
import static io.strata.streaming.handshake.Capabilities.VCAPS;
import static io.strata.streaming.handshake.Capabilities.VN;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class CapabilitiesTest {

    @Test
    void bitValuesAndTheSetsOf1371() {
        assertEquals(8, V1);
        assertEquals(16, V2);
        assertEquals(32, VN);
        assertEquals(64, VCAPS);
        assertEquals(128, HLABELS);
        assertEquals(256, CLAIM);
        assertEquals(512, CLABELS);
        assertEquals(1024, COMPRESSION);
        assertEquals(2048, FUNCTIONS);
        assertEquals(4096, REPLICATION);
        assertEquals(8192, BINARY);
        assertEquals(16376, Capabilities.NETDATA_1_37_1);
        assertEquals(0x3FF8, Capabilities.NETDATA_1_37_1);
        assertEquals(15352, Capabilities.NETDATA_1_37_1_WITHOUT_COMPRESSION);
    }

    @Test
    void realParentNegotiation() {
        // captured: a 1.37.1 parent answered version=15296 to ver=15352 (vectors 03, conn1_p2c.raw)
        assertEquals(15296, Capabilities.negotiateAsParent(15352, Capabilities.NETDATA_1_37_1));
        assertEquals(16320, Capabilities.negotiateAsParent(16376, Capabilities.NETDATA_1_37_1));
        assertEquals("VCAPS HLABELS CLAIM CLABELS FUNCTIONS REPLICATION BINARY", Capabilities.names(15296));
        assertEquals("VCAPS HLABELS CLAIM CLABELS COMPRESSION FUNCTIONS REPLICATION BINARY",
                Capabilities.names(16320));
    }

    @Test
    void parentNeverGrantsWhatItDoesNotSupport() {
        long parentWithoutReplication = Capabilities.NETDATA_1_37_1 & ~REPLICATION;
        assertEquals(16320 & ~REPLICATION, Capabilities.negotiateAsParent(16376, parentWithoutReplication));
        // and never what the child did not offer
        assertEquals(VCAPS | HLABELS, Capabilities.negotiateAsParent(VCAPS | HLABELS, Capabilities.NETDATA_1_37_1));
    }

    @Test
    void oldVersionNumbers() {
        assertEquals(V1, Capabilities.normalise(0), "ver absent => 0 => V1");
        assertEquals(V1, Capabilities.normalise(1), "ver=1 or NETDATA_PROTOCOL_VERSION only => V1");
        assertEquals(V2 | HLABELS, Capabilities.normalise(2));
        assertEquals(VN | HLABELS | CLAIM, Capabilities.normalise(3));
        assertEquals(VN | HLABELS | CLAIM | CLABELS, Capabilities.normalise(4));
        assertEquals(VN | HLABELS | CLAIM | CLABELS | COMPRESSION, Capabilities.normalise(5));
    }

    @Test
    void bitmaskClearsTheOlderProtocolBits() {
        assertEquals(VN, Capabilities.normalise(VN), "VN alone: a bitmask above 5");
        assertEquals(VN | HLABELS, Capabilities.normalise(V1 | V2 | VN | HLABELS));
        assertEquals(V2 | HLABELS, Capabilities.normalise(V1 | V2 | HLABELS));
        assertEquals(VCAPS | CLAIM, Capabilities.normalise(V1 | V2 | VN | VCAPS | CLAIM));
        assertEquals(V1 | CLAIM, Capabilities.normalise(V1 | CLAIM));
        // 6 and 7 only have the never-used low bits: nothing is left, not even V1
        assertEquals(0, Capabilities.normalise(6));
        assertEquals(0, Capabilities.normalise(7));
    }

    @Test
    void unknownBitsAreDroppedAndNumbersAre32BitAsInC() {
        assertEquals(15296, Capabilities.normalise(15352 | (1L << 18) | (1L << 20)));
        // INTERPOLATED (1 << 14) and IEEE754 (1 << 15) are kept: Strata speaks them
        assertEquals(15296 | (1L << 14) | (1L << 15), Capabilities.normalise(15352 | (1L << 14) | (1L << 15)));
        // 2^32-1 is -1 as int32_t: an old version
        assertEquals(V1, Capabilities.normalise(4294967295L));
        assertEquals(V1, Capabilities.normalise(-5));
        // bits above 32 vanish in the int32_t conversion
        assertEquals(15296, Capabilities.normalise((1L << 40) | 15352));
    }

    @Test
    void namesInNetdataOrder() {
        assertEquals("V1 V2 VN VCAPS HLABELS CLAIM CLABELS COMPRESSION FUNCTIONS REPLICATION BINARY",
                Capabilities.names(Capabilities.NETDATA_1_37_1));
        assertEquals("", Capabilities.names(0));
        assertEquals("V1", Capabilities.names(V1 | 1 | 2 | 4 | (1L << 18)));
        assertEquals("BINARY INTERPOLATED IEEE754", Capabilities.names(BINARY | (1L << 14) | (1L << 15)));
    }

    @Test
    void aNetdata29ChildGetsTheDataFormsFromAParentThatSpeaksThem() {
        // what a 2.9.0 child offers (seen on the wire): V1..PATHS with LZ4 ZSTD GZIP BROTLI SLOTS ...
        long offered = 66912248;
        long parent = Capabilities.NETDATA_1_37_1 | Capabilities.INTERPOLATED_IEEE754;
        assertEquals(16320 | Capabilities.INTERPOLATED | Capabilities.IEEE754,
                Capabilities.negotiateAsParent(offered, parent));
        // a parent of the 1.37.1 set alone answers what it answered before
        assertEquals(16320, Capabilities.negotiateAsParent(offered, Capabilities.NETDATA_1_37_1));
        // a 1.37.1 child never gets them: it does not offer them
        assertEquals(16320, Capabilities.negotiateAsParent(16376, parent));
    }

    @Test
    void hasNeedsAllBits() {
        assertTrue(Capabilities.has(16320, COMPRESSION));
        assertFalse(Capabilities.has(15296, COMPRESSION));
        assertTrue(Capabilities.has(16320, COMPRESSION | REPLICATION));
        assertFalse(Capabilities.has(15296, COMPRESSION | REPLICATION));
        assertTrue(Capabilities.has(0, 0));
    }

    @Test
    void oldVersionNumberForVnChildren() {
        assertEquals(5, Capabilities.toOldVersionNumber(VN | HLABELS | CLAIM | CLABELS | COMPRESSION));
        assertEquals(4, Capabilities.toOldVersionNumber(VN | HLABELS | CLAIM | CLABELS));
        assertEquals(3, Capabilities.toOldVersionNumber(VN | HLABELS | CLAIM));
        assertEquals(3, Capabilities.toOldVersionNumber(0));
    }
}
