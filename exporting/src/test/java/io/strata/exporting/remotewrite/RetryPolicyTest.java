package io.strata.exporting.remotewrite;

import org.junit.jupiter.api.Test;

import static io.strata.exporting.remotewrite.RetryPolicy.Verdict.ACCEPTED;
import static io.strata.exporting.remotewrite.RetryPolicy.Verdict.REJECTED;
import static io.strata.exporting.remotewrite.RetryPolicy.Verdict.RETRY;
import static org.junit.jupiter.api.Assertions.assertEquals;

class RetryPolicyTest {

    @Test
    void retriesServerErrorsTooManyRequestsAndNoAnswerOnly() {
        assertEquals(ACCEPTED, RetryPolicy.classify(200));
        assertEquals(ACCEPTED, RetryPolicy.classify(204));
        assertEquals(RETRY, RetryPolicy.classify(500));
        assertEquals(RETRY, RetryPolicy.classify(503));
        assertEquals(RETRY, RetryPolicy.classify(429));
        assertEquals(RETRY, RetryPolicy.classify(RetryPolicy.NO_RESPONSE));
        assertEquals(REJECTED, RetryPolicy.classify(400));
        assertEquals(REJECTED, RetryPolicy.classify(401));
        assertEquals(REJECTED, RetryPolicy.classify(404));
        assertEquals(REJECTED, RetryPolicy.classify(413));
        assertEquals(REJECTED, RetryPolicy.classify(301));
    }

    @Test
    void backsOffExponentiallyUpToTheMaximumAndHonoursRetryAfter() {
        RetryPolicy p = new RetryPolicy(100, 5_000);
        assertEquals(100, p.backoffMillis(1, null));
        assertEquals(200, p.backoffMillis(2, null));
        assertEquals(400, p.backoffMillis(3, null));
        assertEquals(5_000, p.backoffMillis(10, null));
        assertEquals(5_000, p.backoffMillis(1000, null));
        assertEquals(3_000, p.backoffMillis(1, "3"));
        assertEquals(5_000, p.backoffMillis(1, "120"));
        assertEquals(100, p.backoffMillis(1, "Wed, 21 Oct 2015 07:28:00 GMT"));
    }
}
