package io.strata.query.metrics;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Timer;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;

import java.util.Objects;
import java.util.concurrent.TimeUnit;

/**
 * The query API's own meters, on the registry that {@code /metrics} scrapes: the latency of
 * {@code /api/v1/data}, the answers by status class, and the HTTP bytes in and out. The node puts
 * its streaming and engine meters on the same registry, so one scrape shows them all.
 */
public final class ApiMeters {

    /** Prometheus text format 0.0.4, what {@link PrometheusMeterRegistry#scrape()} writes. */
    public static final String PROMETHEUS_TEXT = "text/plain; version=0.0.4; charset=utf-8";

    private final PrometheusMeterRegistry registry;
    private final Timer dataQueries;
    /** Index: status / 100 (1..5); 0 holds anything outside 100..599. */
    private final Counter[] answers = new Counter[6];
    private final Counter bytesReceived;
    private final Counter bytesSent;

    public ApiMeters(PrometheusMeterRegistry registry) {
        this.registry = Objects.requireNonNull(registry, "registry");
        // a summary: quantiles over Micrometer's decaying window (about 2 minutes), so p99 is read
        // straight from a scrape (with histogram buckets as well, the Prometheus registry drops them)
        this.dataQueries = Timer.builder("strata.query.data")
                .description("Time to run and format one /api/v1/data request (queue wait and network excluded)")
                .publishPercentiles(0.5, 0.9, 0.99)
                .register(registry);
        String[] classes = {"other", "1xx", "2xx", "3xx", "4xx", "5xx"};
        for (int i = 0; i < answers.length; i++) {
            answers[i] = Counter.builder("strata.http.responses")
                    .description("HTTP answers of the node's port, by status class")
                    .tag("status", classes[i])
                    .register(registry);
        }
        this.bytesReceived = Counter.builder("strata.http.received")
                .baseUnit("bytes")
                .description("Bytes of HTTP requests read (after TLS)")
                .register(registry);
        this.bytesSent = Counter.builder("strata.http.sent")
                .baseUnit("bytes")
                .description("Bytes of HTTP answers written (after gzip, before TLS)")
                .register(registry);
    }

    /** Meters on a registry of their own (a context without a node around it, e.g. in tests). */
    public static ApiMeters standalone() {
        return new ApiMeters(new PrometheusMeterRegistry(PrometheusConfig.DEFAULT));
    }

    public PrometheusMeterRegistry registry() {
        return registry;
    }

    /** Records one {@code /api/v1/data} request that took {@code nanos}, whatever its status. */
    public void dataQuery(long nanos) {
        dataQueries.record(nanos, TimeUnit.NANOSECONDS);
    }

    public Timer dataQueries() {
        return dataQueries;
    }

    public void answered(int status) {
        int c = status / 100;
        answers[c >= 1 && c <= 5 ? c : 0].increment();
    }

    void received(int bytes) {
        bytesReceived.increment(bytes);
    }

    void sent(int bytes) {
        bytesSent.increment(bytes);
    }

    /** Every meter of the registry in Prometheus text format 0.0.4. */
    public String scrape() {
        return registry.scrape();
    }
}
