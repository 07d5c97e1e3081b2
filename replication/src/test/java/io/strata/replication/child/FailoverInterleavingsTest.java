package io.strata.replication.child;

import io.netty.channel.embedded.EmbeddedChannel;
import io.strata.engine.EngineConfig;
import io.strata.engine.StorageEngine;
import io.strata.engine.meta.HostInfo;
import io.strata.streaming.child.LocalCharts;
import io.strata.streaming.receiver.ReceiverParser;
import io.strata.streaming.sender.SenderSession;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.UUID;

import static io.strata.replication.child.ChildParentWire.command;
import static io.strata.replication.child.ChildParentWire.commands;
import static io.strata.replication.child.ChildParentWire.feed;
import static io.strata.replication.child.ChildParentWire.firstMetric;
import static io.strata.replication.child.ChildParentWire.host;
import static io.strata.replication.child.ChildParentWire.oneDimensionChart;
import static io.strata.replication.child.ChildParentWire.parent;
import static io.strata.replication.child.ChildParentWire.points;
import static io.strata.replication.child.ChildParentWire.senderSettings;
import static io.strata.replication.child.ChildParentWire.session;
import static io.strata.replication.child.ChildParentWire.written;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * A child fails over to a parent that already holds it (through a peer) while its collections go
 * on: whatever the order of its collection passes, of its definitions reaching the parent, of the
 * parent's {@code REPLAY_CHART}s reaching it and of its answers, and at whatever point of a second
 * the old parent died (with or without the child's last pass), the parent ends up with every second
 * the child holds, each at its own second. A value stored a second early (live data continued from
 * a replication state that missed a collection: {@code docs/chaos.md}, finding 4) or a second late,
 * a hole or a spike, fails. The real {@link LocalHostStreamer} and {@link ReceiverParser} share one
 * settable clock; the interleavings are drawn from a seed, one host per seed.
 */
class FailoverInterleavingsTest {

    private static final long T = ChildParentWire.T;
    private static final int SEEDS = 60;

    @TempDir
    Path dir;

    private final ChildParentWire.TestClock clock = new ChildParentWire.TestClock();

    @Test
    void everySecondOfTheChildIsOnTheParentAtItsOwnSecondAfterAFailoverInAnyOrder() throws Exception {
        try (StorageEngine childDb = StorageEngine.open(EngineConfig.defaults(dir.resolve("child")));
             StorageEngine parentDb = StorageEngine.open(EngineConfig.defaults(dir.resolve("parent")))) {
            List<String> failures = new ArrayList<>();
            for (int seed = 0; seed < SEEDS; seed++) {
                String failure = failover(childDb, parentDb, seed);
                if (failure != null) {
                    failures.add("seed " + seed + ":\n" + failure);
                }
            }
            assertEquals(List.of(), failures, failures.size() + " of " + SEEDS + " interleavings left the parent"
                    + " different from the child");
        }
    }

    /** One failover drawn from {@code seed}; null when the parent holds what the child holds, else why not. */
    private String failover(StorageEngine childDb, StorageEngine parentDb, int seed) throws Exception {
        Random rnd = new Random(seed);
        UUID guid = new UUID(0x0d9f6e3c5b1a4f7eL, 0x9a51_0000_0000_0000L + seed);
        StringBuilder log = new StringBuilder();
        EmbeddedChannel toDeadParent = new EmbeddedChannel();
        EmbeddedChannel toNewParent = new EmbeddedChannel();
        try {
            HostInfo host = host(guid, "child-" + seed);
            LocalCharts local = new LocalCharts(childDb, host);
            List<LocalCharts.Chart> charts = new ArrayList<>();
            for (int c = 0; c < 2; c++) {
                charts.add(oneDimensionChart(local, guid, "s.c" + c));
            }
            List<String> requests = new ArrayList<>();
            try (LocalHostStreamer streamer = new LocalHostStreamer(local, senderSettings(), 1, null, clock)) {
                long[] value = {0};
                Runnable pass = () -> {
                    for (LocalCharts.Chart c : charts) {
                        local.collect(c, new long[] {++value[0] * 1000}, null, clock.micros());
                    }
                    local.passDone(charts);
                };
                long second = T;
                // the first parent (the peer's copy, here the parent itself): live from the start
                clock.setMicros(second * 1_000_000L + 1000);
                pass.run();
                SenderSession s1 = session("child-" + seed, toDeadParent, LocalHostStreamer.CHILD_CAPABILITIES);
                ReceiverParser p1 = parent(parentDb, host, requests, clock);
                clock.advance(100_000);
                streamer.onConnected(s1, LocalHostStreamer.CHILD_CAPABILITIES);
                feed(p1, written(toDeadParent));
                commands(streamer, s1, requests);
                requests.clear();
                feed(p1, written(toDeadParent));
                int phase = rnd.nextInt(999_000) + 500;
                for (int i = 0; i < 5; i++) {
                    second++;
                    clock.setMicros(second * 1_000_000L + phase + rnd.nextInt(300_000));
                    pass.run();
                    feed(p1, written(toDeadParent));
                }
                // the first parent dies right after the child's pass of a second: it got it or not
                second++;
                clock.setMicros(second * 1_000_000L + phase + rnd.nextInt(300_000));
                pass.run();
                String lastPass = written(toDeadParent);
                if (rnd.nextBoolean()) {
                    feed(p1, lastPass);
                    log.append("the last pass reached the parent\n");
                }
                streamer.onDisconnected("connection closed by the parent");
                requests.clear();

                SenderSession s2 = session("child-" + seed, toNewParent, LocalHostStreamer.CHILD_CAPABILITIES);
                ReceiverParser p2 = parent(parentDb, host, requests, clock);
                clock.advance(rnd.nextInt(400_000));
                streamer.onConnected(s2, LocalHostStreamer.CHILD_CAPABILITIES);
                log.append("connected at +").append(clock.micros() - T * 1_000_000L).append(" us\n");
                StringBuilder toParent = new StringBuilder(written(toNewParent));
                List<String> toChild = new ArrayList<>();
                int passes = 0;
                while (passes < 6) {
                    switch (rnd.nextInt(4)) {
                        case 0 -> {
                            long next = (second + 1) * 1_000_000L + phase + rnd.nextInt(600_000);
                            if (next > clock.micros()) {
                                second++;
                                clock.setMicros(next);
                                pass.run();
                                passes++;
                                log.append("pass at +").append(clock.micros() - T * 1_000_000L).append('\n');
                            }
                        }
                        case 1 -> {
                            clock.advance(rnd.nextInt(50_000));
                            toParent.append(written(toNewParent));
                            log.append("the parent reads at +").append(clock.micros() - T * 1_000_000L).append(": ")
                                    .append(toParent.toString().replace("\n", " | ")).append('\n');
                            feed(p2, toParent.toString());
                            toParent.setLength(0);
                            toChild.addAll(requests);
                            requests.clear();
                        }
                        case 2 -> {
                            if (!toChild.isEmpty()) {
                                clock.advance(rnd.nextInt(50_000));
                                String request = toChild.remove(0).trim();
                                log.append("the child answers at +").append(clock.micros() - T * 1_000_000L).append(": ")
                                        .append(request).append('\n');
                                command(streamer, s2, request);
                            }
                        }
                        default -> clock.advance(rnd.nextInt(100_000));
                    }
                }
                // everything in flight arrives; one more pass streams live
                for (int k = 0; k < 10; k++) {
                    toChild.addAll(requests);
                    requests.clear();
                    commands(streamer, s2, toChild);
                    toChild.clear();
                    toParent.append(written(toNewParent));
                    feed(p2, toParent.toString());
                    toParent.setLength(0);
                }
                second++;
                clock.setMicros(second * 1_000_000L + phase);
                pass.run();
                feed(p2, written(toNewParent));

                StringBuilder differences = new StringBuilder();
                for (LocalCharts.Chart c : charts) {
                    List<String> held = points(childDb, childDb.metadata().metrics(c.chartId()).get(0));
                    List<String> got = points(parentDb, firstMetric(parentDb, guid, c.id()));
                    if (!held.equals(got)) {
                        differences.append(c.id()).append("\n child  ").append(held).append("\n parent ").append(got)
                                .append('\n');
                    }
                }
                return differences.length() == 0 ? null : differences + log.toString();
            }
        } finally {
            toDeadParent.finishAndReleaseAll();
            toNewParent.finishAndReleaseAll();
        }
    }
}
