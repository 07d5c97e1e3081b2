package io.strata.it.cluster;

import org.junit.jupiter.api.Test;
import org.opentest4j.AssertionFailedError;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The cluster checks judged on canned {@code /api/v1/data} answers: a second the source itself
 * lacks is not waited for on a replica, and every second the source holds still is.
 */
class ClusterChecksTest {

    /** A chart of two dimensions over (100, 105]; {@code null} marks a second without values. */
    private static String data(String... rows) {
        StringBuilder b = new StringBuilder("{\"labels\":[\"time\",\"user\",\"system\"],\"data\":[");
        for (int i = 0; i < rows.length; i++) {
            b.append(i == 0 ? "" : ",").append('[').append(101 + i).append(',')
                    .append(rows[i] == null ? "null,null" : rows[i]).append(']');
        }
        return b.append("]}").toString();
    }

    private static final String SOURCE = data("1,2", "3,4", null, "5,6", "7,8");

    private static double[][] source() throws Exception {
        return ClusterApi.perSecond(path -> SOURCE, "child", "system.cpu", 100, 105);
    }

    @Test
    void aSecondTheSourceNeverCollectedIsNotWaitedFor() throws Exception {
        ClusterApi.Fetcher replica = path -> data("1,2", "3,4", null, "5,6", "7,8");
        // judged against every second, as before: the replica never catches up with a second
        // the source itself lacks (the failure of a real child that lost an iteration under load)
        String everySecond = ClusterChecks.catchUp(replica, "child", "system.cpu", 100, 105, null,
                Duration.ZERO);
        assertNotNull(everySecond);
        assertTrue(everySecond.contains("103/1 103/2"), everySecond);
        assertNull(ClusterChecks.catchUp(replica, "child", "system.cpu", 100, 105, source(), Duration.ZERO));
    }

    @Test
    void aSecondTheSourceHoldsIsStillWaitedFor() throws Exception {
        ClusterApi.Fetcher replica = path -> data("1,2", "3,4", null, null, "7,8");
        String missing = ClusterChecks.catchUp(replica, "child", "system.cpu", 100, 105, source(), Duration.ZERO);
        assertNotNull(missing);
        assertTrue(missing.contains("2 empty values (time/column: 104/1 104/2)"), missing);
        assertTrue(missing.contains("the source's own gaps (time/column): 103/1 103/2"), missing);
    }

    @Test
    void waitForSameWaitsForAReplicaStillBeingFilled() throws Exception {
        AtomicInteger asked = new AtomicInteger();
        ClusterApi.Fetcher replica = path -> asked.incrementAndGet() < 3
                ? data("1,2", null, null, null, "7,8") : data("1,2", "3,4", null, "5,6", "7,8");
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        assertEquals(8, ClusterChecks.waitForSame("system.cpu", source(), replica, "child", "system.cpu", 100, 105,
                deadline, true));
        assertEquals(3, asked.get());
    }

    @Test
    void waitForSameStillFailsOnAMissingOrDifferentValue() throws Exception {
        ClusterApi.Fetcher lost = path -> data("1,2", "3,4", null, null, "7,8");
        assertThrows(AssertionFailedError.class, () -> ClusterChecks.waitForSame("system.cpu", source(), lost,
                "child", "system.cpu", 100, 105, System.nanoTime(), true));
        ClusterApi.Fetcher different = path -> data("1,2", "3,4", null, "5,6.5", "7,8");
        assertThrows(AssertionFailedError.class, () -> ClusterChecks.waitForSame("system.cpu", source(), different,
                "child", "system.cpu", 100, 105, System.nanoTime(), true));
    }
}
