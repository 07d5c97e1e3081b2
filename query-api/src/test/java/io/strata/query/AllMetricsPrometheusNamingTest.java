package io.strata.query;

import io.strata.engine.meta.ChartInfo;
import io.strata.engine.meta.DimensionInfo;
import io.strata.engine.page.StorageNumber;
import io.strata.testsupport.GuardPerClass;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Map;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * How {@code allmetrics?format=prometheus} names charts and metrics, per 1.37.1's prometheus.c,
 * on two charts whose name is not their id (a device-mapper disk, as proc.plugin names it):
 * {@code names} (the default) labels a chart by its name, {@code names=no} by its id;
 * {@code hideunits} leaves the units out of an average's name, {@code oldunits} spells them as
 * before 1.37 ({@code KiB/s} as {@code kilobytes/s}); {@code source=as-collected} names metrics
 * without units, counters (the incremental algorithms) with {@code _total}, and describes each with
 * its multiplier and divisor.
 */
@GuardPerClass("the HTTP client keeps its connection to the server from one test to the next")
class AllMetricsPrometheusNamingTest {

    @TempDir
    static Path dir;
    static RecordedParent parent;
    static TestServer server;

    @BeforeAll
    static void start() throws Exception {
        parent = new RecordedParent(dir);
        var meta = parent.engine.metadata();
        meta.upsertChart(new ChartInfo(RecordedParent.CHILD, "disk_util.dm-0", "disk_util.vg0-root",
                "Disk Utilization Time", "% of time working", "vg0-root", "disk.util", "area", 2000, 1, "proc.plugin",
                "/proc/diskstats", Map.of()));
        int util = meta.upsertDimension(new DimensionInfo(RecordedParent.CHILD, "disk_util.dm-0", "utilization",
                "utilization", "absolute", 1, 10, 0));
        meta.upsertChart(new ChartInfo(RecordedParent.CHILD, "disk.dm-0", "disk.vg0-root", "Disk I/O Bandwidth",
                "KiB/s", "vg0-root", "disk.io", "area", 2000, 1, "proc.plugin", "/proc/diskstats", Map.of()));
        int reads = meta.upsertDimension(new DimensionInfo(RecordedParent.CHILD, "disk.dm-0", "reads", "reads",
                "incremental", 512, 1024, 0));
        int writes = meta.upsertDimension(new DimensionInfo(RecordedParent.CHILD, "disk.dm-0", "writes", "writes",
                "incremental", -512, 1024, 0));
        for (long t = RecordedParent.CHILD_LAST - 30; t <= RecordedParent.CHILD_LAST; t++) {
            assertTrue(parent.engine.store(util, t, 1, 12.5, StorageNumber.SN_DEFAULT_FLAGS));
            assertTrue(parent.engine.store(reads, t, 1, 256, StorageNumber.SN_DEFAULT_FLAGS));
            assertTrue(parent.engine.store(writes, t, 1, -128, StorageNumber.SN_DEFAULT_FLAGS));
        }
        server = new TestServer(parent.api);
        parent.clock.set(RecordedParent.CHILD_LAST + 1);
    }

    @AfterAll
    static void stop() throws IOException {
        server.close();
        parent.close();
    }

    private static String get(String query) throws Exception {
        return server.get("/host/ndq-child/api/v1/allmetrics?format=prometheus&filter=disk*.vg0-root&timestamps=no"
                + query).body();
    }

    @Test
    void chartsAreLabelledByNameUnlessNamesNo() throws Exception {
        String named = get("&server=names&help=yes");
        assertTrue(named.contains("\nnetdata_disk_util___of_time_working_average{chart=\"disk_util.vg0-root\","
                + "family=\"vg0-root\",dimension=\"utilization\"} 12.5000000\n"), named);
        assertTrue(named.contains("# COMMENT homogeneous chart \"disk_util.vg0-root\", context \"disk.util\", family "
                + "\"vg0-root\", units \"% of time working\"\n"), named);
        assertFalse(named.contains("dm-0"), named);

        String ids = get("&server=ids&help=yes&names=no");
        assertTrue(ids.contains("\nnetdata_disk_util___of_time_working_average{chart=\"disk_util.dm-0\","
                + "family=\"vg0-root\",dimension=\"utilization\"} 12.5000000\n"), ids);
        assertTrue(ids.contains("# COMMENT homogeneous chart \"disk_util.dm-0\", context \"disk.util\""), ids);
    }

    @Test
    void hideunitsAndOldunitsNameAverages() throws Exception {
        String hidden = get("&server=hide&hideunits=yes&types=yes");
        assertTrue(hidden.contains("# TYPE netdata_disk_io_average gauge\nnetdata_disk_io_average{chart=\"disk.vg0-root\","
                + "family=\"vg0-root\",dimension=\"reads\"} 256.0000000\n"), hidden);
        String old = get("&server=old&oldunits=yes");
        assertTrue(old.contains("\nnetdata_disk_io_kilobytes_persec_average{chart=\"disk.vg0-root\""), old);
        String current = get("&server=current");
        assertTrue(current.contains("\nnetdata_disk_io_KiB_persec_average{chart=\"disk.vg0-root\""), current);
    }

    @Test
    void collectedValuesAreNamedWithoutUnitsAndCountersWithTotal() throws Exception {
        String raw = get("&source=as-collected&help=yes&types=yes");
        // heterogeneous (writes are negated): one metric per dimension; TYPE keeps the name without _total
        assertTrue(raw.contains("# COMMENT heterogeneous chart \"disk.vg0-root\", context \"disk.io\", family "
                + "\"vg0-root\", units \"KiB/s\"\n"), raw);
        assertTrue(raw.contains("# COMMENT netdata_disk_io_reads_total: chart \"disk.vg0-root\", context \"disk.io\","
                + " family \"vg0-root\", dimension \"reads\", value * 512 / 1024 delta gives KiB/s (counter)\n"
                + "# TYPE netdata_disk_io_reads counter\n"
                + "netdata_disk_io_reads_total{chart=\"disk.vg0-root\",family=\"vg0-root\"} "), raw);
        assertTrue(raw.contains("\nnetdata_disk_io_writes_total{chart=\"disk.vg0-root\",family=\"vg0-root\"} "), raw);
        // an absolute dimension is a gauge, named by its context alone
        assertTrue(raw.contains("# COMMENT netdata_disk_util: chart \"disk_util.vg0-root\", context \"disk.util\","
                + " family \"vg0-root\", dimension \"utilization\", value * 1 / 10 gives % of time working (gauge)\n"
                + "# TYPE netdata_disk_util gauge\n"
                + "netdata_disk_util{chart=\"disk_util.vg0-root\",family=\"vg0-root\",dimension=\"utilization\"} "), raw);
    }
}
