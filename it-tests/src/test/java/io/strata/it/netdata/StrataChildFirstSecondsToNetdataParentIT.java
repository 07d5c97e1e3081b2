package io.strata.it.netdata;

import com.fasterxml.jackson.databind.JsonNode;
import io.strata.engine.EngineConfig;
import io.strata.engine.StorageEngine;
import io.strata.engine.meta.ChartInfo;
import io.strata.engine.meta.DimensionInfo;
import io.strata.engine.meta.HostInfo;
import io.strata.engine.page.StorageNumber;
import io.strata.replication.child.LocalHostStreamer;
import io.strata.streaming.auth.StreamConfig;
import io.strata.streaming.child.LocalCharts;
import io.strata.streaming.handshake.Capabilities;
import io.strata.streaming.handshake.StreamRequest;
import io.strata.streaming.sender.Handshake;
import io.strata.streaming.sender.SenderListener;
import io.strata.streaming.sender.SenderSession;
import io.strata.streaming.sender.StreamSender;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A Strata child whose chart collects its first points while the real Netdata 1.37.1 parent's
 * {@code REPLAY_CHART} is on its way (the child reads it only after three collections): the chart
 * was defined before it stored anything ({@code CHART_DEFINITION_END 0 0 now}), the parent asks
 * {@code "true" 0 0}, and the child's answer carries the points it withheld meanwhile. The real
 * parent must hold every second of the chart from the child's first.
 */
class StrataChildFirstSecondsToNetdataParentIT {

    private static final String CHART = "strata.first_seconds";

    @TempDir
    Path tmp;

    @Test
    void pointsCollectedBeforeTheFirstReplayAnswerReachTheRealParent() throws Exception {
        RealNetdata.assumeInstalled();
        UUID guid = UUID.randomUUID();
        String hostname = "strata-first";
        try (RealNetdata parent = RealNetdata.parent(tmp.resolve("ndparent"), "ndparent", RealNetdata.freePort(),
                false);
             StorageEngine engine = StorageEngine.open(EngineConfig.defaults(tmp.resolve("child")))) {
            parent.start(Duration.ofSeconds(180));
            LocalCharts local = new LocalCharts(engine, new HostInfo(guid, hostname, "linux", "UTC", 1, Map.of()));
            LocalCharts.Chart chart = local.define(ChartInfo.of(guid, CHART, 1),
                    List.of(DimensionInfo.of(guid, CHART, "a"), DimensionInfo.of(guid, CHART, "b")));
            StreamConfig.SenderSettings settings = new StreamConfig.SenderSettings(true,
                    "127.0.0.1:" + parent.webPort(), RealNetdata.API_KEY, 60, 19999, 10L << 20, 5, 60, false, "*", "",
                    "", false);
            // the streamer's own sender is never started: ours hands it the connection and holds
            // the parent's first REPLAY_CHART back until the collector stored its first points
            LocalHostStreamer streamer = new LocalHostStreamer(local, settings, 1, null);
            CountDownLatch defined = new CountDownLatch(1);
            CountDownLatch collectedMeanwhile = new CountDownLatch(3);
            List<String> commands = new CopyOnWriteArrayList<>();
            SenderListener delaying = new SenderListener() {
                @Override
                public void onConnected(SenderSession s, long capabilities) {
                    streamer.onConnected(s, capabilities);
                    defined.countDown();
                }

                @Override
                public void onParentCommand(SenderSession s, byte[] line, int length) {
                    commands.add(new String(line, 0, length, StandardCharsets.UTF_8));
                    try {
                        collectedMeanwhile.await(20, TimeUnit.SECONDS);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        return;
                    }
                    streamer.onParentCommand(s, line, length);
                }

                @Override
                public void onDisconnected(String reason) {
                    streamer.onDisconnected(reason);
                }
            };
            Handshake handshake = Handshake.netdata(d -> StreamRequest.builder().key(RealNetdata.API_KEY)
                    .hostname(hostname).registryHostname(hostname).machineGuid(guid.toString()).updateEvery(1)
                    .os("linux").hops(1).ver(LocalHostStreamer.CHILD_CAPABILITIES & ~Capabilities.COMPRESSIONS)
                    .programName("netdata").programVersion("v1.37.1").build().encode());
            ScheduledExecutorService collector = Executors.newSingleThreadScheduledExecutor();
            try (StreamSender sender = StreamSender.fromSettings(hostname, settings, settings.destination(), handshake,
                    delaying, null)) {
                sender.start();
                assertTrue(defined.await(60, TimeUnit.SECONDS), "never connected: " + parent.errorLog());
                AtomicInteger n = new AtomicInteger();
                long periodMicros = 1_000_000L;
                long nowMicros = System.currentTimeMillis() * 1000;
                collector.scheduleAtFixedRate(() -> {
                    long t = System.currentTimeMillis() * 1000;
                    int i = n.incrementAndGet();
                    local.collect(chart, new long[] {1000L + i, 5000L - i}, null, t);
                    local.passDone(List.of(chart));
                    collectedMeanwhile.countDown();
                }, periodMicros - nowMicros % periodMicros + 20_000, periodMicros, TimeUnit.MICROSECONDS);
                // the first answer is written after three collections, then live data for a while
                long deadline = System.nanoTime() + Duration.ofSeconds(40).toNanos();
                while (n.get() < 12 && System.nanoTime() < deadline) {
                    Thread.sleep(200);
                }
                assertTrue(commands.size() >= 1, "no REPLAY_CHART from the parent");
                assertEquals("REPLAY_CHART \"" + CHART + "\" \"true\" 0 0", commands.get(0),
                        "the real parent asks to start at once for a chart defined without data");

                TreeMap<Long, double[]> ours = new TreeMap<>();
                int[] metrics = engine.metadata().metrics(chart.chartId()).stream().mapToInt(Integer::intValue)
                        .toArray();
                for (int d = 0; d < metrics.length; d++) {
                    int col = d;
                    engine.queryTier0(metrics[d], 0, Long.MAX_VALUE / 2, (time, sn) -> {
                        if (!StorageNumber.isEmpty(sn)) {
                            ours.computeIfAbsent(time, k -> new double[] {Double.NaN, Double.NaN})[col] =
                                    StorageNumber.unpack(sn);
                        }
                    });
                }
                assertTrue(ours.size() >= 8, "the child stored too little: " + ours.keySet());
                long first = ours.firstKey();
                long last = ours.lastKey() - 1;
                JsonNode data = parent.get("/host/" + hostname + "/api/v1/data?chart=" + CHART + "&after="
                        + (first - 1) + "&before=" + last + "&points=" + (last - first + 1)
                        + "&group=average&format=json&options=seconds%7Cunaligned");
                JsonNode labels = data.get("labels");
                Map<Long, JsonNode> rows = new TreeMap<>();
                for (JsonNode row : data.get("data")) {
                    rows.put(row.get(0).asLong(), row);
                }
                List<String> differ = new ArrayList<>();
                for (long t = first; t <= last; t++) {
                    double[] mine = ours.get(t);
                    JsonNode row = rows.get(t);
                    for (int col = 1; col < labels.size(); col++) {
                        int d = labels.get(col).asText().equals("a") ? 0 : 1;
                        JsonNode v = row == null ? null : row.get(col);
                        if (v == null || v.isNull()) {
                            differ.add(t + " " + labels.get(col).asText() + ": the parent has no value, the child "
                                    + (mine == null ? "none" : mine[d]));
                        } else if (mine == null || !NetdataChildToStrataParentIT.close(mine[d], v.asDouble())) {
                            differ.add(t + " " + labels.get(col).asText() + ": parent " + v.asDouble() + ", child "
                                    + (mine == null ? "none" : mine[d]));
                        }
                    }
                }
                System.out.println("[StrataChildFirstSecondsToNetdataParentIT] child's seconds " + first + ".." + last
                        + " on the real parent: " + differ.size() + " missing or different; commands " + commands);
                assertTrue(differ.isEmpty(), "the real parent lacks the child's first seconds: " + differ);
            } finally {
                collector.shutdownNow();
                collector.awaitTermination(5, TimeUnit.SECONDS);
                streamer.close();
            }
        }
    }
}
