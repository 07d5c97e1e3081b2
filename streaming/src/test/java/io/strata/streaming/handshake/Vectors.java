package io.strata.streaming.handshake;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;

/** Captured Netdata 1.37.1 bytes copied under src/test/resources/vectors/netdata-1.37.1. */
public final class Vectors {

    public static final String PLAIN = "01-child-to-fakeparent-plain/";
    public static final String LZ4 = "02-child-to-fakeparent-lz4/";
    public static final String REAL_PARENT = "03-child-proxy-realparent-replication/";

    private Vectors() {
    }

    public static byte[] read(String relative) {
        String path = "/vectors/netdata-1.37.1/" + relative;
        try (InputStream in = Vectors.class.getResourceAsStream(path)) {
            if (in == null) {
                throw new IllegalStateException("missing test resource " + path);
            }
            return in.readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
