package io.strata.streaming.receiver;

import io.strata.streaming.auth.StreamConfig;

/**
 * Bounds on what one streamed host may make a parent hold, so that a broken or hostile child
 * cannot exhaust memory. The defaults are Netdata's where Netdata has one (line length 16384-1024)
 * and generous elsewhere (Netdata itself has no chart limit). A line over {@code maxLineBytes} or a
 * label or variable over its bound is a protocol error (the stream closes); a chart or dimension
 * over its bound is refused alone (not stored, the stream goes on).
 *
 * @param maxChartsPerHost     charts the host may have in the metadata store, all its streams together
 * @param maxDimensionsPerHost dimensions of all the host's charts together
 */
public record ReceiverLimits(int maxLineBytes, int maxChartsPerHost, int maxDimensionsPerChart,
                             int maxLabelsPerHost, int maxFunctionResultBytes, int maxDimensionsPerHost) {

    public static final ReceiverLimits DEFAULTS = new ReceiverLimits(16384 - 1024,
            (int) StreamConfig.DEFAULT_MAX_CHARTS_PER_HOST, 10_000, 1_000, 10 * 1024 * 1024,
            (int) StreamConfig.DEFAULT_MAX_DIMENSIONS_PER_HOST);

    /** Limits with the default total of dimensions per host. */
    public ReceiverLimits(int maxLineBytes, int maxChartsPerHost, int maxDimensionsPerChart, int maxLabelsPerHost,
                          int maxFunctionResultBytes) {
        this(maxLineBytes, maxChartsPerHost, maxDimensionsPerChart, maxLabelsPerHost, maxFunctionResultBytes,
                (int) StreamConfig.DEFAULT_MAX_DIMENSIONS_PER_HOST);
    }

    /** These limits with a host's totals from stream.conf ({@code max charts/dimensions per host}; ≤ 0: none). */
    public ReceiverLimits withHostTotals(long maxCharts, long maxDimensions) {
        return new ReceiverLimits(maxLineBytes, bound(maxCharts), maxDimensionsPerChart, maxLabelsPerHost,
                maxFunctionResultBytes, bound(maxDimensions));
    }

    private static int bound(long configured) {
        return configured <= 0 || configured > Integer.MAX_VALUE ? Integer.MAX_VALUE : (int) configured;
    }
}
