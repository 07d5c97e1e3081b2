package io.strata.it.netdata;

import com.fasterxml.jackson.databind.JsonNode;
import io.strata.engine.StorageEngine;
import io.strata.engine.meta.DimensionInfo;
import io.strata.engine.meta.MetadataStore;
import io.strata.engine.page.StorageNumber;
import io.strata.streaming.receiver.ReceiverStats;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A real Netdata 1.37.1 child answers a Strata parent's request for a hole behind the chart's live
 * data ({@code REPLAY_CHART "<chart>" "false" <after> <before>}), and the parent stores it.
 *
 * <p>The hole is made on the wire: a relay between them drops six points (the 3rd to the 8th) of
 * the child's first answer for {@code system.cpu}, which the child sends after collecting ~15 s
 * while the relay held its connection. The parent sees an answer that skips those seconds, keeps
 * the hole, and asks the child again once the chart is live; the relay passes that answer
 * untouched. Then every second of the chart the child answers in {@code /api/v1/data} over the
 * stream's first seconds, the hole's included, is stored by the parent, equal, and the live seconds
 * after the hole's answer too (its state lines did not disturb the live chart).
 */
class NetdataChildAnswersAHoleAskedAgainIT {

    private static final String CHART = "system.cpu";

    @TempDir
    Path tmp;

    @Test
    void aRealChildAnswersAFalseRangeRequestForAHoleAndTheParentStoresIt() throws Exception {
        RealNetdata.assumeInstalled();
        try (StrataTestParent parent = StrataTestParent.start(tmp.resolve("strata-parent"), false);
             HoleCuttingRelay relay = new HoleCuttingRelay(parent.port(), Duration.ofSeconds(15));
             RealNetdata child = RealNetdata.child(tmp.resolve("ndchild"), "ndchild", RealNetdata.freePort(),
                     "127.0.0.1:" + relay.port(), false)) {
            child.start(Duration.ofSeconds(180));
            ReceiverStats stats = parent.stats();
            long deadline = System.nanoTime() + Duration.ofSeconds(120).toNanos();
            while (System.nanoTime() < deadline && stats.holesFilled.sum() == 0) {
                Thread.sleep(250);
            }
            assertFalse(relay.dropped.isEmpty(), "the relay dropped no point: " + child.errorLog());
            List<Long> dropped = List.copyOf(relay.dropped);
            assertTrue(relay.holeRequests.stream().anyMatch(l -> l.startsWith("REPLAY_CHART \"" + CHART
                            + "\" \"false\" ")), "no hole request passed the relay: " + relay.holeRequests);
            assertTrue(stats.holesFilled.sum() >= 1, "the hole was not filled: remembered "
                    + stats.holesRemembered.sum() + ", asked " + stats.holesAsked.sum() + ", given up "
                    + stats.holesGivenUp.sum() + ", requests " + relay.holeRequests + ", dropped " + dropped);
            assertEquals(0, stats.protocolErrors.sum(), "protocol errors on the parent");
            System.out.println("dropped " + dropped + "; hole requests " + relay.holeRequests + "; holes remembered "
                    + stats.holesRemembered.sum() + ", asked " + stats.holesAsked.sum() + ", filled "
                    + stats.holesFilled.sum() + ", given up " + stats.holesGivenUp.sum());

            StorageEngine engine = parent.engine();
            MetadataStore meta = engine.metadata();
            int chart = meta.chartId(UUID.fromString(child.machineGuid()), CHART);
            assertTrue(chart >= 0, "the parent does not know " + CHART);
            // a few live seconds stored after the hole's answer
            long filledAt = System.currentTimeMillis() / 1000;
            int firstMetric = meta.metrics(chart).get(0);
            long liveDeadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            while (System.nanoTime() < liveDeadline && engine.registry().lastTime(firstMetric, 0) < filledAt + 5) {
                Thread.sleep(200);
            }
            assertTrue(engine.registry().lastTime(firstMetric, 0) >= filledAt + 5, "no live second after the hole");
            long after = dropped.get(0) - 3;
            long before = System.currentTimeMillis() / 1000 - 2;
            JsonNode data = child.get("/api/v1/data?chart=" + CHART + "&after=" + after + "&before=" + before
                    + "&points=" + (before - after) + "&group=average&format=json&options=seconds%7Cunaligned");
            JsonNode labels = data.get("labels");
            Map<String, DimensionInfo> byId = NetdataChildToStrataParentIT.dimensionsById(meta, chart);
            List<String> differ = new ArrayList<>();
            Set<Long> holeSecondsCompared = new TreeSet<>();
            long compared = 0;
            for (int col = 1; col < labels.size(); col++) {
                String name = labels.get(col).asText();
                int metric = -1;
                for (int m : meta.metrics(chart)) {
                    if (meta.dimension(m).name().equals(name)) {
                        metric = m;
                    }
                }
                assertTrue(metric >= 0, "the parent lacks dimension " + name + " of " + byId.keySet());
                TreeMap<Long, Double> ours = new TreeMap<>();
                engine.queryTier0(metric, after - 1, before, (time, sn) -> {
                    if (!StorageNumber.isEmpty(sn)) {
                        ours.put(time, StorageNumber.unpack(sn));
                    }
                });
                for (JsonNode row : data.get("data")) {
                    long t = row.get(0).asLong();
                    JsonNode v = row.get(col);
                    if (v == null || v.isNull()) {
                        continue;
                    }
                    compared++;
                    Double mine = ours.get(t);
                    if (mine == null || !NetdataChildToStrataParentIT.close(mine, v.asDouble())) {
                        differ.add(name + " @" + t + ": child " + v.asDouble() + ", parent " + mine);
                    } else if (dropped.contains(t)) {
                        holeSecondsCompared.add(t);
                    }
                }
            }
            System.out.println("compared " + compared + " points of " + CHART + " over " + (after + 1) + ".." + before
                    + ": " + differ.size() + " differ; the hole's seconds held: " + holeSecondsCompared);
            assertTrue(differ.isEmpty(), differ.size() + " of " + compared + " differ: "
                    + differ.subList(0, Math.min(20, differ.size())));
            assertEquals(new TreeSet<>(dropped), holeSecondsCompared,
                    "every second the relay dropped is held by the parent, equal to the child's");
        }
    }

    /**
     * A relay on 127.0.0.1 that holds the child's first connection {@code hold} before relaying it,
     * then drops the 3rd to the 8th point ({@code RBEGIN ''} and its {@code RSET}s) of the child's
     * first answer for {@link #CHART}, and records the parent's {@code REPLAY_CHART} lines for it.
     * Uncompressed streams only. Daemon threads; {@link #close()} ends them.
     */
    static final class HoleCuttingRelay implements AutoCloseable {
        final List<Long> dropped = new CopyOnWriteArrayList<>();
        final List<String> holeRequests = new CopyOnWriteArrayList<>();
        private final ServerSocket server;
        private final int targetPort;
        private final long holdNanos;
        private final List<Socket> sockets = new CopyOnWriteArrayList<>();
        private final Thread acceptor;

        HoleCuttingRelay(int targetPort, Duration hold) throws IOException {
            this.targetPort = targetPort;
            this.holdNanos = hold.toNanos();
            this.server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
            this.acceptor = new Thread(this::acceptLoop, "hole-relay-" + server.getLocalPort());
            this.acceptor.setDaemon(true);
            this.acceptor.start();
        }

        int port() {
            return server.getLocalPort();
        }

        private void acceptLoop() {
            long start = System.nanoTime();
            while (!server.isClosed()) {
                Socket child;
                try {
                    child = server.accept();
                } catch (IOException closed) {
                    return;
                }
                sockets.add(child);
                try {
                    long wait = start + holdNanos - System.nanoTime();
                    if (wait > 0) {
                        Thread.sleep(wait / 1_000_000 + 1);
                    }
                    Socket parent = new Socket();
                    sockets.add(parent);
                    parent.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), targetPort), 5000);
                    pump(child, parent, true);
                    pump(parent, child, false);
                } catch (IOException | InterruptedException e) {
                    closeQuietly(child);
                    if (e instanceof InterruptedException) {
                        return;
                    }
                }
            }
        }

        private void pump(Socket from, Socket to, boolean childToParent) {
            Thread t = new Thread(() -> {
                byte[] buf = new byte[65536];
                ByteArrayOutputStream line = new ByteArrayOutputStream();
                LineFilter filter = new LineFilter();
                try {
                    InputStream in = from.getInputStream();
                    OutputStream out = to.getOutputStream();
                    ByteArrayOutputStream chunk = new ByteArrayOutputStream();
                    int n;
                    while ((n = in.read(buf)) > 0) {
                        for (int i = 0; i < n; i++) {
                            line.write(buf[i]);
                            if (buf[i] == '\n') {
                                byte[] l = line.toByteArray();
                                line.reset();
                                String s = new String(l, StandardCharsets.ISO_8859_1);
                                if (childToParent ? filter.keep(s) : record(s)) {
                                    chunk.write(l);
                                }
                            }
                        }
                        if (!childToParent && line.size() > 0) {
                            // the parent's handshake reply has no newline: pass what is there
                            chunk.write(line.toByteArray());
                            line.reset();
                        }
                        out.write(chunk.toByteArray());
                        out.flush();
                        chunk.reset();
                    }
                } catch (IOException ended) {
                    // one side closed
                } finally {
                    closeQuietly(from);
                    closeQuietly(to);
                }
            }, "hole-relay-pump");
            t.setDaemon(true);
            t.start();
        }

        private boolean record(String s) {
            if (s.startsWith("REPLAY_CHART \"" + CHART + "\"")) {
                holeRequests.add(s.trim());
            }
            return true;
        }

        /** Drops the 3rd to the 8th point of the first answer for {@link #CHART}; every other line passes. */
        private final class LineFilter {
            private boolean done;
            private boolean inAnswer;
            private int point;
            private boolean dropping;

            boolean keep(String s) {
                if (done) {
                    return true;
                }
                if (s.startsWith("RBEGIN \"" + CHART + "\"")) {
                    inAnswer = true;
                    point = 0;
                    return true;
                }
                if (!inAnswer) {
                    return true;
                }
                if (s.startsWith("RBEGIN ''")) {
                    point++;
                    dropping = point >= 3 && point <= 8;
                    if (dropping) {
                        dropped.add(Long.parseLong(s.trim().split(" ")[3]));
                    }
                    return !dropping;
                }
                if (s.startsWith("RSET")) {
                    return !dropping;
                }
                if (s.startsWith("REND")) {
                    inAnswer = false;
                    dropping = false;
                    done = true;
                }
                return true;
            }
        }

        private static void closeQuietly(Socket s) {
            try {
                s.close();
            } catch (IOException ignored) {
                // closing
            }
        }

        @Override
        public void close() throws IOException {
            server.close();
            for (Socket s : sockets) {
                closeQuietly(s);
            }
            try {
                acceptor.join(5000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
