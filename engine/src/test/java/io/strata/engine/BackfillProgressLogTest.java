package io.strata.engine;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.strata.engine.page.StorageNumber;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static io.strata.engine.EngineTestSupport.define;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The backfill at start says at INFO that it begins, and how long it took and what it computed. */
class BackfillProgressLogTest {

    static final long T0 = 1_700_000_000L;
    static final Pattern DONE = Pattern.compile(
            "backfill: done in \\d+ ms: (\\d+) of (\\d+) metrics backfilled, (\\d+) points computed from (\\d+) points read");

    @Test
    void tiersAddedAtARestartAreBackfilledWithAStartAndAnEndAtInfo(@TempDir Path dir) throws Exception {
        int[] ids;
        long end = T0 + 3 * 3600 + 100;
        try (StorageEngine e = StorageEngine.open(EngineConfig.defaults(dir).withTiers(1))) {
            ids = define(e, 2, 3);
            for (long t = T0; t < end; t++) {
                for (int m : ids) {
                    e.store(m, t, 1, EngineTestSupport.value(m, t), StorageNumber.SN_DEFAULT_FLAGS);
                }
            }
        }
        Logger backfillLog = (Logger) LoggerFactory.getLogger(Backfill.class);
        ListAppender<ILoggingEvent> logged = new ListAppender<>();
        logged.start();
        backfillLog.addAppender(logged);
        try (StorageEngine e = StorageEngine.open(EngineConfig.defaults(dir).withTiers(3))) {
            List<String> info = logged.list.stream().filter(ev -> ev.getLevel() == Level.INFO)
                    .map(ILoggingEvent::getFormattedMessage).toList();
            info.forEach(l -> System.out.println("[BackfillProgressLogTest] " + l));
            assertEquals("backfill: checking 6 metrics for the points tiers 1..2 lack", info.get(0));
            Matcher done = DONE.matcher(info.get(info.size() - 1));
            assertTrue(done.matches(), info.get(info.size() - 1));
            assertEquals(6, Long.parseLong(done.group(1)));
            assertEquals(6, Long.parseLong(done.group(2)));
            // per metric: every second read once for tier 1, every minute once for tier 2 (about);
            // computed: a tier-1 point per minute and a tier-2 point per hour (the open ones too)
            long seconds = end - T0;
            long computed = Long.parseLong(done.group(3));
            long read = Long.parseLong(done.group(4));
            assertTrue(computed >= 6 * (seconds / 60 + seconds / 3600) && computed <= 6 * (seconds / 60 + seconds / 3600 + 4),
                    "points computed " + computed);
            assertTrue(read >= 6 * seconds, "points read " + read);
            assertTrue(e.registry().lastTime(ids[0], 1) != io.strata.engine.registry.MetricRegistry.NO_TIME);
        } finally {
            backfillLog.detachAppender(logged);
        }
    }
}
