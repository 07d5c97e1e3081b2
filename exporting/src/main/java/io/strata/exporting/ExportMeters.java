package io.strata.exporting;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;

import java.util.concurrent.atomic.AtomicLong;

/**
 * One target's meters ({@code /metrics}): {@code strata_exporting_samples_sent_total},
 * {@code strata_exporting_bytes_sent_total} (the compressed bodies acknowledged),
 * {@code strata_exporting_requests_total}, {@code strata_exporting_failures_total{status}} (an HTTP status, or
 * {@code no_response}), {@code strata_exporting_samples_rejected_total} (refused with a 4xx, not retried),
 * {@code strata_exporting_samples_rotated_out_total} (gone from the engine before they were sent),
 * {@code strata_exporting_filled_samples_sent_total}, {@code strata_exporting_filled_windows_not_resent_total},
 * {@code strata_exporting_fill_pages_dropped_total} (holes filled behind the position),
 * and the gauges {@code strata_exporting_lag_seconds} (wall clock minus the oldest position of an exported
 * host), {@code strata_exporting_position_seconds} (that position: where a restart resumes),
 * {@code strata_exporting_pending_samples} (stored, not yet acknowledged) and {@code strata_exporting_hosts}.
 * Every meter has the tag {@code target} (the instance name).
 */
final class ExportMeters {

    private final MeterRegistry registry;
    private final String target;
    final Counter samplesSent;
    final Counter bytesSent;
    final Counter uncompressedBytes;
    final Counter requests;
    final Counter samplesRejected;
    final Counter samplesRotatedOut;
    final Counter filledSamplesSent;
    final Counter filledWindowsNotResent;
    final Counter fillPagesDropped;
    final AtomicLong lagSeconds = new AtomicLong();
    final AtomicLong positionSeconds = new AtomicLong();
    final AtomicLong pendingSamples = new AtomicLong();
    final AtomicLong hosts = new AtomicLong();

    ExportMeters(MeterRegistry registry, String target) {
        this.registry = registry;
        this.target = target;
        samplesSent = Counter.builder("strata.exporting.samples.sent").tag("target", target)
                .description("samples the target acknowledged").register(registry);
        bytesSent = Counter.builder("strata.exporting.bytes.sent").tag("target", target).baseUnit("bytes")
                .description("snappy-compressed request bodies the target acknowledged").register(registry);
        uncompressedBytes = Counter.builder("strata.exporting.protobuf.bytes").tag("target", target).baseUnit("bytes")
                .description("protobuf bytes of the acknowledged requests before compression").register(registry);
        requests = Counter.builder("strata.exporting.requests").tag("target", target)
                .description("requests the target acknowledged").register(registry);
        samplesRejected = Counter.builder("strata.exporting.samples.rejected").tag("target", target)
                .description("samples the target refused with a status that must not be retried").register(registry);
        samplesRotatedOut = Counter.builder("strata.exporting.samples.rotated.out").tag("target", target)
                .description("samples rotated out of the engine before they could be sent").register(registry);
        filledSamplesSent = Counter.builder("strata.exporting.filled.samples.sent").tag("target", target)
                .description("samples of holes filled behind the export position, acknowledged").register(registry);
        filledWindowsNotResent = Counter.builder("strata.exporting.filled.windows.not.resent").tag("target", target)
                .description("windows sent before a hole in them was filled: not sent again with another value")
                .register(registry);
        fillPagesDropped = Counter.builder("strata.exporting.fill.pages.dropped").tag("target", target)
                .description("pages stored behind the export position that could not be queued for sending")
                .register(registry);
        Gauge.builder("strata.exporting.lag", lagSeconds, AtomicLong::get).tag("target", target).baseUnit("seconds")
                .description("wall clock minus the oldest position of an exported host").register(registry);
        Gauge.builder("strata.exporting.position", positionSeconds, AtomicLong::get).tag("target", target)
                .baseUnit("seconds").description("the oldest position (Unix seconds) of an exported host")
                .register(registry);
        Gauge.builder("strata.exporting.pending.samples", pendingSamples, AtomicLong::get).tag("target", target)
                .description("samples stored and not yet acknowledged").register(registry);
        Gauge.builder("strata.exporting.hosts", hosts, AtomicLong::get).tag("target", target)
                .description("hosts this node exports to the target").register(registry);
    }

    void failure(int status) {
        registry.counter("strata.exporting.failures", "target", target, "status",
                status < 0 ? "no_response" : Integer.toString(status)).increment();
    }
}
