package io.strata.node.compare;

import java.util.List;
import java.util.Map;

/**
 * What one parent did under the load, over the measured window.
 *
 * @param windowSeconds          length of the window, by the monotonic clock
 * @param samplesInWindow        samples the load sent in the window: offered per second x window x the share
 *                               of its schedule the load kept over the whole run
 * @param parentCpuSeconds       utime + stime of the parent over the window
 * @param cpuByThread            the parent's CPU seconds over the window per thread family, largest first
 * @param rssStartBytes          VmRSS at the start of the window
 * @param rssEndBytes            VmRSS at its end
 * @param threadsEnd             threads of the parent at the end of the window
 * @param rowsQueried            rows of /api/v1/data read back over the window (sample hosts x charts x seconds)
 * @param nullRows               of those, rows with a null value (a gap)
 * @param queryErrors            queries that failed (a missing host or chart counts here, not as rows)
 * @param ingestLagMaxSeconds    at the window's end: now minus the newest stored second, worst sampled host
 * @param ingestLagMedianSeconds the same, median of the sampled hosts
 * @param loadCpuSeconds         CPU of the load generator's process over the window
 * @param loadSent               samples the load sent over its whole run
 * @param loadOffered            samples its schedule called for over its whole run
 * @param loadErrors             the load's connection errors and refusals (first ones)
 * @param tier0Bytes             bytes of every file of tier 0 after the parent stopped
 * @param tier0BytesPerSample    tier0Bytes / samples the load sent (the parent's own few charts included)
 * @param engineReportedTier0    the engine's own figure of tier-0 bytes per sample (Strata: db verify's bytes
 *                               on disk / points on disk; Netdata: 4-byte points x (1 - its dbengine
 *                               compression savings)), NaN where it gave none
 * @param engineReportedHow      how that figure was obtained
 */
public record ParentMeasurement(String name, double windowSeconds, double samplesInWindow, double parentCpuSeconds,
                                List<Map.Entry<String, Double>> cpuByThread, long rssStartBytes, long rssEndBytes,
                                int threadsEnd, long rowsQueried, long nullRows, List<String> queryErrors,
                                double ingestLagMaxSeconds, double ingestLagMedianSeconds, double loadCpuSeconds,
                                long loadSent, double loadOffered, List<String> loadErrors, long tier0Bytes,
                                double tier0BytesPerSample, double engineReportedTier0, String engineReportedHow) {

    public double parentCores() {
        return parentCpuSeconds / windowSeconds;
    }

    public double cpuNanosPerSample() {
        return parentCpuSeconds * 1e9 / samplesInWindow;
    }

    public double samplesPerCpuSecond() {
        return samplesInWindow / parentCpuSeconds;
    }

    public double loadKeptShare() {
        return loadOffered <= 0 ? 0 : loadSent / loadOffered;
    }

    /** The load kept its schedule: at least 99 % of the collections it should have sent, without errors. */
    public boolean loadKeptSchedule() {
        return loadKeptShare() >= 0.99 && loadErrors.isEmpty();
    }

    public double loadCores() {
        return loadCpuSeconds / windowSeconds;
    }
}
