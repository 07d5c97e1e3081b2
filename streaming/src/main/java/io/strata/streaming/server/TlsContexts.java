package io.strata.streaming.server;

import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.util.InsecureTrustManagerFactory;

import javax.net.ssl.SSLException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** TLS for the node's port ({@code [web] ssl key}/{@code ssl certificate}) and for {@code :SSL} destinations. */
public final class TlsContexts {

    private TlsContexts() {
    }

    /** The server side, from PEM files, as Netdata's web server takes them. */
    public static SslContext server(Path certificate, Path key) throws IOException {
        for (Path p : new Path[]{certificate, key}) {
            if (!Files.isReadable(p)) {
                throw new IOException("TLS: cannot read " + p);
            }
        }
        try {
            return SslContextBuilder.forServer(certificate.toFile(), key.toFile()).build();
        } catch (SSLException | IllegalArgumentException e) {
            throw new IOException("TLS: cannot use certificate " + certificate + " with key " + key + ": "
                    + e.getMessage(), e);
        }
    }

    /**
     * The client side of a child: {@code ssl skip certificate verification = yes} trusts any
     * certificate (self-signed parents, as Netdata allows); otherwise {@code CAfile} when it exists,
     * else the JDK's trust store.
     */
    public static SslContext client(boolean skipVerification, String caFile) throws IOException {
        SslContextBuilder b = SslContextBuilder.forClient();
        if (skipVerification) {
            b.trustManager(InsecureTrustManagerFactory.INSTANCE);
        } else if (caFile != null && !caFile.isEmpty() && Files.isReadable(Path.of(caFile))) {
            b.trustManager(Path.of(caFile).toFile());
        }
        try {
            return b.build();
        } catch (SSLException | IllegalArgumentException e) {
            throw new IOException("TLS: cannot build the client context: " + e.getMessage(), e);
        }
    }
}
