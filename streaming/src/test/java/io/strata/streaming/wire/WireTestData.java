package io.strata.streaming.wire;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.zip.GZIPInputStream;

/** The captured Netdata 1.37.1 LZ4 stream copied into the test resources. */
final class WireTestData {
    static final String CAPTURE_DIR = "/vectors/netdata-1.37.1/02-child-to-fakeparent-lz4/";

    private static byte[] raw;
    private static byte[] decompressed;

    private WireTestData() {
    }

    /** Every byte child -> parent: the plain handshake request, then the LZ4 blocks. */
    static synchronized byte[] captureRaw() {
        if (raw == null) {
            raw = gunzip(CAPTURE_DIR + "child_to_parent.raw.gz");
        }
        return raw;
    }

    /** What the LZ4 blocks of {@link #captureRaw()} decode to. */
    static synchronized byte[] captureDecompressed() {
        if (decompressed == null) {
            decompressed = gunzip(CAPTURE_DIR + "child_to_parent.decompressed.txt.gz");
        }
        return decompressed;
    }

    /** Offset of the first LZ4 header: just after the request's CRLF CRLF. */
    static int firstBlockOffset(byte[] capture) {
        for (int i = 0; i + 3 < capture.length; i++) {
            if (capture[i] == '\r' && capture[i + 1] == '\n' && capture[i + 2] == '\r' && capture[i + 3] == '\n') {
                return i + 4;
            }
        }
        throw new IllegalStateException("no end of request in the capture");
    }

    private static byte[] gunzip(String resource) {
        try (InputStream in = WireTestData.class.getResourceAsStream(resource)) {
            if (in == null) {
                throw new IllegalStateException("missing test resource " + resource);
            }
            try (GZIPInputStream gz = new GZIPInputStream(in)) {
                return gz.readAllBytes();
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
