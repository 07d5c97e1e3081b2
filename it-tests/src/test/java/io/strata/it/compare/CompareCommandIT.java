package io.strata.it.compare;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.strata.node.compare.CompareReport;
import io.strata.node.compare.CompareSettings;
import io.strata.node.compare.Comparison;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code strata compare} at a CI size: a real Netdata 1.37.1 parent and a Strata parent, each a
 * process of its own, under 20 children x 20 charts x 8 dimensions in real time. Asserts what the
 * result holds (both measured, every field present, Strata's stored data without a gap), never a
 * duration or a ratio: those are figures of the machine, for docs/benchmarks.md.
 */
class CompareCommandIT {

    private static final List<String> MEASURED = List.of("samples_in_window", "parent_cores", "cpu_ns_per_sample",
            "samples_per_cpu_second", "rss_start_mib", "rss_end_mib", "threads", "rows_read_back", "null_rows",
            "ingest_lag_max_s", "tier0_bytes_per_sample_sent", "load_cores", "load_kept_share");

    @Test
    void bothParentsMeasuredUnderTheSameLoad() throws Exception {
        Path scratch = Path.of("target", "compare-runs", "ci-" + System.currentTimeMillis()).toAbsolutePath();
        Files.createDirectories(scratch);
        CompareSettings s = new CompareSettings(20, 20, 8, 1, 40, 10, true, scratch, 4, 3);
        Comparison.Result r = new Comparison(s, System.out).run();
        String table = CompareReport.table(r);
        System.out.println(table);
        JsonNode j = new ObjectMapper().readTree(CompareReport.json(r));

        assertEquals(20 * 20 * 8, j.path("load").path("metrics").asLong());
        JsonNode strata = j.path("strata");
        assertMeasured("strata", strata);
        assertEquals(0, strata.path("null_rows").asLong(), "Strata stored the window without a gap:\n" + table);
        assertEquals(4 * 3 * 40, strata.path("rows_read_back").asLong(), 3 * 4 * 3,
                "one row a second for every sampled host x chart:\n" + table);
        assertTrue(strata.path("tier0_bytes_per_sample_reported").isNumber(), "db verify's figure:\n" + table);
        assertTrue(table.contains("Strata/Netdata"), table);

        if (j.path("netdata").isNull()) {
            String why = j.path("netdata_skipped").asText();
            assertFalse(why.isEmpty(), "a skipped Netdata says why");
            System.out.println("SKIPPED the Netdata half: " + why);
            assertFalse(Files.isExecutable(Path.of("/usr/sbin/netdata")), "netdata is installed, yet skipped: " + why);
            return;
        }
        JsonNode netdata = j.path("netdata");
        assertMeasured("netdata", netdata);
        JsonNode ratios = j.path("ratios_strata_to_netdata");
        for (String k : List.of("parent_cores", "cpu_ns_per_sample", "rss_end_mib", "threads",
                "tier0_bytes_per_sample_sent")) {
            assertTrue(ratios.path(k).isNumber(), "ratio " + k + " in " + ratios);
        }
    }

    private static void assertMeasured(String name, JsonNode part) {
        for (String k : MEASURED) {
            assertTrue(part.path(k).isNumber(), name + "." + k + " is a number: " + part);
        }
        assertTrue(part.path("samples_in_window").asDouble() > 0, name + ": the load reached it: " + part);
        assertTrue(part.path("parent_cpu_seconds").asDouble() > 0, name + ": its CPU was read: " + part);
        assertTrue(part.path("rss_end_bytes").asLong() > 0, name + ": its RSS was read: " + part);
        assertTrue(part.path("threads").asLong() > 0, name + ": its threads were read: " + part);
        assertTrue(part.path("tier0_bytes").asLong() > 0, name + ": it wrote tier 0: " + part);
        assertTrue(part.path("rows_read_back").asLong() > 0, name + ": its data was read back: " + part);
        if (name.equals("strata")) {
            assertTrue(part.path("read_back_errors").isEmpty(), name + ": every sampled chart answered: " + part);
        } else if (!part.path("read_back_errors").isEmpty()) {
            // the anchor measured as it is: a Netdata parent that lost some of the load's charts on a
            // machine too busy for it is a figure of the comparison (printed in its table), not a
            // failure of the command
            System.out.println("[compare] " + name + " did not answer every sampled chart: "
                    + part.path("read_back_errors"));
        }
        assertTrue(part.path("load_errors").isEmpty(), name + ": the load ran without errors: " + part);
        assertFalse(part.path("cpu_by_thread").isEmpty(), name + ": CPU by thread: " + part);
        assertTrue(part.path("load_samples_sent").asLong() > 0, name + ": " + part);
    }
}
