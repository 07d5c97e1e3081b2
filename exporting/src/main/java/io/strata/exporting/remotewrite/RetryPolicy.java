package io.strata.exporting.remotewrite;

/**
 * What to do after a remote-write attempt, as the specification says: 2xx is success; 5xx and 429 (and a
 * request that got no answer) are retried with exponential back-off, honouring a {@code Retry-After} of
 * seconds; any other status is a rejection of the data that must not be retried.
 */
public final class RetryPolicy {

    /** Status of an attempt that got no HTTP answer (connection refused, reset, timeout). */
    public static final int NO_RESPONSE = -1;

    public enum Verdict {
        ACCEPTED, RETRY, REJECTED
    }

    private final long minBackoffMillis;
    private final long maxBackoffMillis;

    public RetryPolicy(long minBackoffMillis, long maxBackoffMillis) {
        if (minBackoffMillis <= 0 || maxBackoffMillis < minBackoffMillis) {
            throw new IllegalArgumentException("back-off " + minBackoffMillis + ".." + maxBackoffMillis + " ms");
        }
        this.minBackoffMillis = minBackoffMillis;
        this.maxBackoffMillis = maxBackoffMillis;
    }

    /** 100 ms doubling to 10 s. */
    public static RetryPolicy defaults() {
        return new RetryPolicy(100, 10_000);
    }

    public static Verdict classify(int status) {
        if (status >= 200 && status < 300) {
            return Verdict.ACCEPTED;
        }
        if (status == NO_RESPONSE || status == 429 || (status >= 500 && status < 600)) {
            return Verdict.RETRY;
        }
        return Verdict.REJECTED;
    }

    /**
     * The wait before retry number {@code attempt} (1 for the first retry): the minimum doubled each
     * time up to the maximum; a {@code Retry-After} of seconds (429, 503) is honoured up to the maximum.
     */
    public long backoffMillis(int attempt, String retryAfter) {
        long wait = minBackoffMillis << Math.min(Math.max(0, attempt - 1), 30);
        wait = Math.min(wait, maxBackoffMillis);
        if (retryAfter != null) {
            try {
                long seconds = Long.parseLong(retryAfter.trim());
                if (seconds > 0) {
                    wait = Math.max(wait, Math.min(seconds * 1000, maxBackoffMillis));
                }
            } catch (NumberFormatException e) {
                // an HTTP date: keep the exponential wait
            }
        }
        return wait;
    }
}
