package io.strata.node.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code strata bench engine}: the cold-scan options, a scan of an earlier run's directory, refused usage. */
class BenchEngineCommandTest {

    @Test
    void aRunWithAColdScanThenAScanOfItsDirectory(@TempDir Path tmp) throws Exception {
        Path db = tmp.resolve("db");
        DiskCheckCommandTest.Run r = DiskCheckCommandTest.run("bench", "engine", "--metrics", "200", "--seconds", "1200",
                "--tiers", "2", "--dir", db.toString(), "--cold-scan", "--scan-reads", "2", "--scan-run-mb", "1", "--json");
        assertEquals(0, r.code(), r.err());
        JsonNode j = new ObjectMapper().readTree(r.out());
        assertEquals(200 * 1200, j.get("points").asLong());
        assertEquals(2, j.get("cold_scan_reads_in_flight").asInt());
        assertEquals(1 << 20, j.get("cold_scan_run_bytes").asInt());
        assertTrue(j.get("cold_scan_bytes").asLong() > 0);
        assertTrue(j.get("heap_committed_bytes").asLong() > 0);
        JsonNode samples = j.get("memory_samples");
        assertTrue(samples.size() >= 1 && samples.size() <= 20, "samples over the write phase: " + samples);
        assertEquals(1200, samples.get(samples.size() - 1).get("second").asInt(), "the last sample is the end of the run");
        assertEquals(1024, j.get("memory_samples_from_second").asInt(), "counted once every first page has sealed");
        assertTrue(j.get("memory_per_metric_peak_over_baseline_bytes").asDouble()
                >= j.get("memory_per_metric_median_over_baseline_bytes").asDouble());
        assertTrue(j.get("memory_per_metric_peak_over_shrunk_baseline_bytes").asDouble()
                >= j.get("memory_per_metric_peak_over_baseline_bytes").asDouble(), "a shrunk baseline never lowers it");
        assertTrue(j.get("rss_high_water_bytes").asLong() >= j.get("rss_bytes").asLong());
        long bytes = j.get("cold_scan_bytes").asLong();

        DiskCheckCommandTest.Run s = DiskCheckCommandTest.run("bench", "engine", "--tiers", "2", "--dir", db.toString(),
                "--scan-only", "--scan-ordered", "--json");
        assertEquals(0, s.code(), s.err());
        JsonNode k = new ObjectMapper().readTree(s.out());
        assertEquals(bytes, k.get("cold_scan_bytes").asLong(), "the same extents, read again");
        assertEquals(4, k.get("cold_scan_reads_in_flight").asInt());
        assertEquals(200L * 1200, Math.round(k.get("cold_scan_points_per_second").asDouble()
                * k.get("cold_scan_bytes").asLong() / (k.get("cold_scan_decode_mb_s").asDouble() * (1 << 20))),
                "every tier-0 point decoded once");
    }

    /** Netdata's {@code -W stresstest=2,2,1,...} shape: 2 writers of a 128-dimension chart, a reader, 2 s. */
    @Test
    void netdataStressTestShapeForADuration(@TempDir Path tmp) throws Exception {
        DiskCheckCommandTest.Run r = DiskCheckCommandTest.run("bench", "engine", "--metrics", "256",
                "--dimensions-per-chart", "128", "--writers", "2", "--readers", "1", "--dataset", "netdata-stresstest",
                "--seconds", "50000000", "--duration", "2", "--tiers", "3", "--cache-mb", "64",
                "--dir", tmp.resolve("db").toString(), "--json");
        assertEquals(0, r.code(), r.err());
        JsonNode j = new ObjectMapper().readTree(r.out());
        assertEquals("netdata-stresstest", j.get("dataset").asText());
        assertEquals(2.0, j.get("duration_seconds").asDouble());
        assertEquals(64L << 20, j.get("cache_bytes").asLong());
        long seconds = j.get("seconds").asLong();
        assertTrue(seconds > 0 && seconds < 50_000_000L, "stopped by the duration: " + seconds);
        assertTrue(j.get("points").asLong() >= 256 * seconds, j.toString());
        assertEquals(0, j.get("read_errors").asLong());
        assertTrue(j.get("queries").asLong() > 0, "the reader ran");
    }

    @Test
    void badOptionsAreRefused(@TempDir Path tmp) {
        assertEquals(2, DiskCheckCommandTest.run("bench", "engine", "--duration", "-1").code(), "a negative duration");
        assertEquals(2, DiskCheckCommandTest.run("bench", "engine", "--cache-mb", "-1").code(), "a negative cache");
        assertEquals(2, DiskCheckCommandTest.run("bench", "engine", "--scan-only").code(), "--scan-only needs --dir");
        assertEquals(2, DiskCheckCommandTest.run("bench", "engine", "--dir", tmp.toString(), "--scan-reads", "0").code());
        assertEquals(2, DiskCheckCommandTest.run("bench", "engine", "--dir", tmp.toString(), "--scan-run-mb", "65").code());
        assertEquals(1, DiskCheckCommandTest.run("bench", "engine", "--dir", tmp.resolve("none").toString(), "--scan-only")
                .code(), "no database there");
    }
}
