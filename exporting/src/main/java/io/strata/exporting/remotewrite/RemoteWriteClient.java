package io.strata.exporting.remotewrite;

import io.strata.exporting.config.Destination;
import io.strata.exporting.config.TargetConfig;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import java.util.List;

/**
 * Posts remote-write bodies to a target, with the headers remote write 1.0 requires
 * ({@code Content-Encoding: snappy}, {@code Content-Type: application/x-protobuf}, {@code User-Agent},
 * {@code X-Prometheus-Remote-Write-Version: 0.1.0}) and HTTP basic authentication when the target has a
 * user name. HTTP/1.1 (no h2c upgrade, which some receivers refuse); TLS for {@code :https} with the
 * JDK's trust store and host-name verification. {@code destination} is a failover list: an attempt that
 * gets no answer moves to the next destination; one that gets an answer stays.
 * One thread at a time (the target's exporter).
 */
public final class RemoteWriteClient {

    public static final String USER_AGENT = "Strata/0.1.0";

    /** The outcome of one attempt: an HTTP status (or {@link RetryPolicy#NO_RESPONSE}) and the target's reason. */
    public record Response(int status, String reason, String retryAfter, Destination destination) {
    }

    private final TargetConfig cfg;
    private final HttpClient http;
    private final String authorization;
    private final List<URI> uris;
    private int current;

    public RemoteWriteClient(TargetConfig cfg) {
        this.cfg = cfg;
        this.http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(Duration.ofMillis(cfg.timeoutMillis())).followRedirects(HttpClient.Redirect.NEVER)
                .build();
        this.authorization = cfg.username().isEmpty() ? null : "Basic " + Base64.getEncoder().encodeToString(
                (cfg.username() + ":" + cfg.password()).getBytes(StandardCharsets.UTF_8));
        this.uris = cfg.destinations().stream()
                .map(d -> URI.create((cfg.tls() ? "https://" : "http://") + d.authority() + cfg.path())).toList();
    }

    /** The destination the next attempt goes to. */
    public Destination destination() {
        return cfg.destinations().get(current);
    }

    /** One attempt. Never throws for the target's failures: they are in the response. */
    public Response post(byte[] body, int length) throws InterruptedException {
        Destination d = destination();
        HttpRequest.Builder b = HttpRequest.newBuilder(uris.get(current))
                .timeout(Duration.ofMillis(cfg.timeoutMillis()))
                .header("Content-Encoding", "snappy")
                .header("Content-Type", "application/x-protobuf")
                .header("User-Agent", USER_AGENT)
                .header("X-Prometheus-Remote-Write-Version", "0.1.0")
                .POST(HttpRequest.BodyPublishers.ofByteArray(body, 0, length));
        if (authorization != null) {
            b.header("Authorization", authorization);
        }
        try {
            HttpResponse<byte[]> r = http.send(b.build(), HttpResponse.BodyHandlers.ofByteArray());
            String reason = new String(r.body(), 0, Math.min(r.body().length, 512), StandardCharsets.UTF_8).strip();
            return new Response(r.statusCode(), reason, r.headers().firstValue("Retry-After").orElse(null), d);
        } catch (IOException e) {
            current = (current + 1) % uris.size();
            String why = e.getMessage() == null || e.getMessage().isEmpty() ? e.getClass().getSimpleName()
                    : e.getMessage();
            return new Response(RetryPolicy.NO_RESPONSE, why, null, d);
        }
    }
}
