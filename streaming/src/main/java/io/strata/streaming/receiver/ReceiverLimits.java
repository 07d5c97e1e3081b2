package io.strata.streaming.receiver;

/**
 * Bounds on what one streamed host may make a parent hold, so that a broken or hostile child
 * cannot exhaust memory. The defaults are Netdata's where Netdata has one (line length 16384-1024)
 * and generous elsewhere (Netdata itself has no chart limit).
 */
public record ReceiverLimits(int maxLineBytes, int maxChartsPerHost, int maxDimensionsPerChart,
                             int maxLabelsPerHost, int maxFunctionResultBytes) {

    public static final ReceiverLimits DEFAULTS = new ReceiverLimits(16384 - 1024, 50_000, 10_000, 1_000,
            10 * 1024 * 1024);
}
