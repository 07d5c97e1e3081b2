package io.strata.it.cluster;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * A Strata child with two independent Strata parents in its list, {@code A B}: it streams to A,
 * then (A stopped) to B; A comes back holding the child's data only up to its stop. The child
 * restarts, its list again {@code A B}: it asks both parents {@code /api/v3/stream_info} and
 * connects to B, which holds its newest data, not to A, the first of its list.
 */
class StrataChildPicksFreshestParentIT {

    private static final Duration WAIT = Duration.ofSeconds(60);

    @Test
    void aRestartedChildGoesToTheParentHoldingItsNewestDataNotTheFirstOfItsList() throws Exception {
        Path tmp = ClusterLayout.runDirectory("StrataChildPicksFreshestParentIT");
        int pa = ClusterLayout.freePort();
        int pb = ClusterLayout.freePort();
        NodeProcess a = ClusterLayout.parent(tmp, "parent-a", pa, List.of());
        NodeProcess b = ClusterLayout.parent(tmp, "parent-b", pb, List.of());
        NodeProcess child = ClusterLayout.child(tmp, "child", ClusterLayout.freePort(), List.of(pa, pb), 4, 2);
        try (a; b; child) {
            a.start();
            b.start();
            child.start();
            Path guidFile = child.dir.resolve("lib/registry/netdata.public.unique.id");
            long deadline = System.nanoTime() + WAIT.toNanos();
            while (!Files.exists(guidFile) && System.nanoTime() < deadline) {
                Thread.sleep(100);
            }
            String guid = Files.readString(guidFile).trim();
            long firstOnA = awaitIngest(a, guid, "online").get("last_time_s").asLong();
            // A holds a few seconds of the child before it stops
            deadline = System.nanoTime() + WAIT.toNanos();
            long heldByA = firstOnA;
            while (System.nanoTime() < deadline && (heldByA == 0 || heldByA < firstOnA + 3)) {
                if (firstOnA == 0) {
                    firstOnA = streamInfo(a, guid).get("last_time_s").asLong();
                }
                heldByA = streamInfo(a, guid).get("last_time_s").asLong();
                Thread.sleep(250);
            }
            assertTrue(heldByA > 0 && heldByA >= firstOnA + 3, "A never held a few seconds of the child: " + heldByA);
            System.out.println("[ChildPicksFreshestParentIT] the child streams to A, the first of its list");

            a.stop();
            awaitIngest(b, guid, "online");
            a.start();
            JsonNode onA = awaitIngest(a, guid, "offline");
            long lastOnA = onA.get("last_time_s").asLong();
            assertTrue(lastOnA >= heldByA, "A came back without what it held: " + onA);
            // B must be ahead by a few seconds the child collected after A stopped
            deadline = System.nanoTime() + WAIT.toNanos();
            long lastOnB = 0;
            while (System.nanoTime() < deadline && lastOnB < lastOnA + 5) {
                lastOnB = streamInfo(b, guid).get("last_time_s").asLong();
                Thread.sleep(250);
            }
            assertTrue(lastOnB >= lastOnA + 5, "B never got ahead of A: " + lastOnB + " vs " + lastOnA);

            child.stop();
            int restartedAt = child.log().length();
            child.start();
            String linkToB = "[send to 127.0.0.1:" + pb + "]: established link";
            String linkToA = "[send to 127.0.0.1:" + pa + "]: established link";
            int toB = child.waitForLog(linkToB, restartedAt, WAIT);
            String afterRestart = child.log().substring(restartedAt);
            assertTrue(toB >= 0, "the restarted child did not connect to B:\n" + afterRestart);
            int toA = afterRestart.indexOf(linkToA);
            assertTrue(toA < 0 || restartedAt + toA > toB, "the restarted child went to A, the first of its list,"
                    + " though B holds newer data (A " + lastOnA + ", B " + lastOnB + "):\n" + afterRestart);
            assertTrue(afterRestart.contains("trying '127.0.0.1:" + pb + "' first"), afterRestart);
            awaitIngest(b, guid, "online");
            assertEquals("offline", streamInfo(a, guid).get("ingest_status").asText(), "A is not streamed to");
            System.out.println("[ChildPicksFreshestParentIT] restarted, the child chose B (newest second " + lastOnB
                    + ") over A, the first of its list (newest second " + lastOnA + ")");
        }
    }

    private static JsonNode streamInfo(NodeProcess p, String guid) throws IOException, InterruptedException {
        return ClusterApi.get(p, "/api/v3/stream_info?machine_guid=" + guid);
    }

    /** Until the parent's stream_info says it holds the host with this ingest status. */
    private static JsonNode awaitIngest(NodeProcess p, String guid, String status) throws Exception {
        long deadline = System.nanoTime() + WAIT.toNanos();
        String last = "";
        while (System.nanoTime() < deadline) {
            try {
                JsonNode info = streamInfo(p, guid);
                if (status.equals(info.path("ingest_status").asText())) {
                    return info;
                }
                last = info.toString();
            } catch (IOException notYet) {
                // 404 until the host is known, or the parent is still starting
                last = notYet.getMessage();
            }
            Thread.sleep(200);
        }
        fail(p + " never reported the child " + status + ": " + last + "\n" + p.tail(30));
        return null;
    }
}
