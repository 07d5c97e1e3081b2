package io.strata.streaming.server;

import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.util.InsecureTrustManagerFactory;

import javax.net.ssl.SSLException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import io.strata.streaming.auth.StreamConfig;

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
     * certificate (self-signed parents, as Netdata allows); otherwise the certificates of
     * {@code CAfile}. A {@code CAfile} that is set but cannot be read, or holds no certificate, is an
     * error (Netdata falls back quietly to OpenSSL's store, which hides a typo until the parent's
     * certificate changes); only Netdata's default path, absent as on Debian, means the JDK's store.
     */
    public static SslContext client(boolean skipVerification, String caFile) throws IOException {
        SslContextBuilder b = SslContextBuilder.forClient();
        if (skipVerification) {
            b.trustManager(InsecureTrustManagerFactory.INSTANCE);
        } else if (caFile != null && !caFile.isEmpty()) {
            Path ca = Path.of(caFile);
            if (Files.isReadable(ca)) {
                try {
                    b.trustManager(ca.toFile());
                } catch (IllegalArgumentException e) {
                    throw new IOException("TLS: cannot build the client context from CAfile " + caFile + ": "
                            + e.getMessage(), e);
                }
            } else if (!caFile.equals(StreamConfig.SenderSettings.DEFAULT_CA_FILE)) {
                throw new IOException("TLS: CAfile " + caFile + " cannot be read"
                        + (Files.exists(ca) ? " (permissions)" : " (no such file)"));
            }
        }
        try {
            return b.build();
        } catch (SSLException | IllegalArgumentException e) {
            throw new IOException("TLS: cannot build the client context" + (caFile == null || skipVerification ? ""
                    : " from CAfile " + caFile) + ": " + e.getMessage(), e);
        }
    }

    /**
     * Checks stream.conf's {@code CAfile} and {@code CApath} at start: a {@code CAfile} set to another
     * path than Netdata's default must be readable; {@code CApath} (OpenSSL's hashed directory) is not
     * read by Strata, so one set to another directory than the default is refused rather than ignored.
     *
     * @return null when they can be used, else why not
     */
    public static String checkTrustSettings(String caFile, String caPath) {
        String defaultFile = StreamConfig.SenderSettings.DEFAULT_CA_FILE;
        String defaultPath = StreamConfig.SenderSettings.DEFAULT_CA_PATH;
        if (caFile != null && !caFile.isEmpty() && !caFile.equals(defaultFile) && !Files.isReadable(Path.of(caFile))) {
            return "[stream] CAfile = " + caFile + " cannot be read";
        }
        if (caPath != null && !caPath.isEmpty() && !caPath.equals(defaultPath)
                && !caPath.equals(defaultPath.substring(0, defaultPath.length() - 1))) {
            return "[stream] CApath = " + caPath + " is not supported: Strata does not read OpenSSL's hashed"
                    + " certificate directories; put the CA certificates in one PEM file and set CAfile";
        }
        return null;
    }
}
