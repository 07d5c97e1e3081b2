package io.strata.node.chaos;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link ChaosNode#kill9} returns only once the node's process and its descendants are gone, so a
 * restart right after it never finds the node "already running"; and when a process outlives the
 * bound, the failure names it.
 */
class ChaosNodeTest {

    private static final Pattern SLEEPING = Pattern.compile("sleeping (\\d+)");

    @TempDir
    Path dir;

    private ChaosNode node;

    @AfterEach
    void stop() throws InterruptedException {
        if (node != null) {
            node.kill9();
        }
    }

    @Test
    void killNineReturnsOnceTheProcessAndItsDescendantsAreGoneSoTheNodeStartsAgain() throws Exception {
        // a process tree like netdata under timeout: the node's process (sh) and a descendant (sleep);
        // the node's command line is this "JVM command" followed by "node --config DIR" (sh's $1...)
        node = new ChaosNode("chaos-test-node", ChaosNode.Kind.CHILD, dir, "127.0.0.1", 1, null,
                List.of("sh", "-c", "sleep 600 & echo \"sleeping $!\"; wait", "sh"), Duration.ofSeconds(600));
        node.start(0);
        long descendant = awaitDescendantPid(1);
        assertTrue(node.alive());

        node.kill9();

        assertFalse(node.alive(), "the node's process is reaped when kill9 returns");
        assertFalse(runningOrStopped(descendant), "its descendant " + descendant + " is gone when kill9 returns: "
                + ChaosNode.procState(descendant));
        node.start(0);
        assertTrue(node.alive(), "started again right after kill9");
        long second = awaitDescendantPid(2);
        node.kill9();
        assertFalse(node.alive());
        assertFalse(runningOrStopped(second), ChaosNode.procState(second));
    }

    @Test
    void aProcessThatOutlivesTheBoundIsNamedInTheFailure() throws Exception {
        Process p = new ProcessBuilder("sleep", "600").start();
        try {
            IllegalStateException e = assertThrows(IllegalStateException.class,
                    () -> ChaosNode.awaitGone("chaos-test-node", p, List.of(), Duration.ZERO));
            assertTrue(e.getMessage().startsWith("chaos-test-node: process " + p.pid() + " ("), e.getMessage());
            assertTrue(e.getMessage().contains("still there"), e.getMessage());
        } finally {
            p.destroyForcibly();
            assertTrue(p.waitFor(60, TimeUnit.SECONDS), "sleep ended after its SIGKILL");
        }
    }

    /** The pid of the sleep started by the node's start number {@code start}, once the node wrote it. */
    private long awaitDescendantPid(int start) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (System.nanoTime() < deadline) {
            Matcher m = SLEEPING.matcher(Files.readString(node.log(), StandardCharsets.UTF_8));
            int found = 0;
            while (m.find()) {
                if (++found == start) {
                    return Long.parseLong(m.group(1));
                }
            }
            TimeUnit.MILLISECONDS.sleep(20);
        }
        throw new AssertionError("the node's sleep of start " + start + " did not start: " + node.tail(10));
    }

    /** Whether the process is there and not a zombie (a zombie has ended; init reaps it). */
    private static boolean runningOrStopped(long pid) {
        String state = ChaosNode.procState(pid);
        return !state.startsWith("no /proc entry") && !state.startsWith("Z");
    }
}
