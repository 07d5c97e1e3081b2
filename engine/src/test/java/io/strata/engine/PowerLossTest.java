package io.strata.engine;

import io.strata.engine.io.FileChannelIo;
import io.strata.engine.io.PowerLossFileIo;
import io.strata.engine.page.StorageNumber;
import io.strata.engine.recovery.RecoveryReport;
import io.strata.engine.verify.DbVerifier;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

import static io.strata.engine.EngineTestSupport.define;
import static io.strata.engine.EngineTestSupport.sn;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Power loss, for each fsync policy, with the unsynced part of every file dropped or a random
 * subset of its pages: recovery opens the database, no point read back differs from what was
 * written, and what the policy promises ({@code docs/format/README.md}, "Power loss") is there:
 * <ul>
 *   <li>every policy: the datafiles closed before the power loss (closing syncs a datafile
 *       before its journal v2 exists, under every policy);</li>
 *   <li>{@code per-extent}: also every extent of the open datafile, up to the last flush;</li>
 *   <li>{@code per-datafile}, {@code never}: the open datafile's extents may be lost.</li>
 * </ul>
 * {@code db verify}, run on the damaged files before recovery, reports damage exactly when
 * recovery then repairs some.
 */
class PowerLossTest {

    static final long T0 = 1_700_000_000L;
    static final long CLOSED_UNTIL = T0 + 2 * 3600;
    static final long FLUSHED_UNTIL = CLOSED_UNTIL + 1800;
    static final long STORED_UNTIL = FLUSHED_UNTIL + 300;

    static Stream<Arguments> cases() {
        List<Arguments> out = new ArrayList<>();
        for (FsyncPolicy p : FsyncPolicy.values()) {
            for (PowerLossFileIo.Mode m : PowerLossFileIo.Mode.values()) {
                out.add(Arguments.of(p, m));
            }
        }
        return out.stream();
    }

    static void write(StorageEngine e, int[] ids, long from, long to) {
        for (long t = from; t < to; t++) {
            for (int m : ids) {
                assertTrue(e.store(m, t, 1, EngineTestSupport.value(m, t), StorageNumber.SN_DEFAULT_FLAGS));
            }
        }
    }

    @ParameterizedTest(name = "{0}, {1}")
    @MethodSource("cases")
    void recoveryKeepsWhatThePolicyPromises(FsyncPolicy policy, PowerLossFileIo.Mode mode, @TempDir Path dir)
            throws Exception {
        PowerLossFileIo io = new PowerLossFileIo();
        EngineConfig cfg = EngineConfig.defaults(dir).withTiers(2).withFsync(policy).withDatafileMaxBytes(128 << 10)
                .withFlushMaxAgeMillis(5).withClockSeconds(() -> STORED_UNTIL);
        StorageEngine e = StorageEngine.open(cfg.withIo(io));
        int[] ids = define(e, 5, 10);
        write(e, ids, T0, CLOSED_UNTIL);
        e.flush();
        e.tier(0).rollover();
        write(e, ids, CLOSED_UNTIL, FLUSHED_UNTIL);
        e.flush();
        write(e, ids, FLUSHED_UNTIL, STORED_UNTIL);
        int changed = io.powerLoss(mode, policy.ordinal() * 31L + mode.ordinal());
        e.flushTimeoutMillis = 2_000;
        e.closeJoinMillis = 5_000;
        try {
            e.close();
        } catch (Exception expected) {
            // the machine is off: the old engine's last writes and its close fail
        }

        DbVerifier.Result verified = DbVerifier.verify(FileChannelIo.INSTANCE, dir);
        RecoveryReport report;
        long[] closed = new long[1];
        long[] flushed = new long[1];
        long[] later = new long[1];
        try (StorageEngine r = StorageEngine.open(cfg)) {
            report = r.recoveryReport();
            for (int m : ids) {
                r.queryTier0(m, T0, STORED_UNTIL - 1, (t, v) -> {
                    assertEquals(sn(m, t), v, "metric " + m + " at " + t + ": a point read back differs");
                    (t < CLOSED_UNTIL ? closed : t < FLUSHED_UNTIL ? flushed : later)[0]++;
                });
            }
            // tier 1 holds no wrong aggregate either: every one is a window of the values written
            for (int m : ids) {
                r.query(m, 1, T0, STORED_UNTIL, (int) ((STORED_UNTIL - T0) / 60), (t, sum, min, max, count, an) -> {
                    assertTrue(count == 0 || (min <= max && sum >= min * count - 1e-3 && sum <= max * count + 1e-3),
                            "aggregate at " + t);
                });
            }
        }
        long n = ids.length;
        System.out.printf("[PowerLossTest] %s, %s: %d file(s) lost bytes; kept %d/%d closed, %d/%d flushed, %d/%d "
                        + "stored after; verify: %s; recovery: %d finding(s)%n", policy, mode, changed, closed[0],
                n * (CLOSED_UNTIL - T0), flushed[0], n * (FLUSHED_UNTIL - CLOSED_UNTIL), later[0],
                n * (STORED_UNTIL - FLUSHED_UNTIL), verified.intact() ? "intact" : verified.errors(),
                report.findings().size());
        assertEquals(n * (CLOSED_UNTIL - T0), closed[0], "closed datafiles survive under every policy");
        if (policy == FsyncPolicy.PER_EXTENT) {
            assertEquals(n * (FLUSHED_UNTIL - CLOSED_UNTIL), flushed[0], "per-extent: every flushed extent survives");
            assertTrue(verified.intact(), "per-extent: nothing to find: " + verified.errors());
        }
        boolean damageRepaired = report.findings().stream().anyMatch(f -> f.file().contains("datafile")
                || f.file().contains("journalfile"));
        assertEquals(damageRepaired, !verified.intact(), "verify reports damage exactly when recovery repairs some: "
                + verified.errors() + " / " + report.findings());
    }
}
