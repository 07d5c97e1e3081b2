package io.strata.node.cli;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import picocli.CommandLine;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code strata disk-check}, run in-process on tiny files in a temporary directory. */
class DiskCheckCommandTest {

    static final ObjectMapper JSON = new ObjectMapper().enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);
    static final String[] TINY = {"--size-mb", "8", "--random-seconds", "0.3", "--fsyncs", "20"};

    record Run(int code, String out, String err) {
    }

    static Run run(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CommandLine cl = new CommandLine(new StrataMain());
        cl.setOut(new PrintWriter(out, true));
        cl.setErr(new PrintWriter(err, true));
        int code = cl.execute(args);
        return new Run(code, out.toString(), err.toString());
    }

    static Run tiny(Path dir, String... more) {
        List<String> args = new java.util.ArrayList<>(List.of("disk-check", dir.toString()));
        args.addAll(List.of(TINY));
        args.addAll(List.of(more));
        return run(args.toArray(String[]::new));
    }

    static JsonNode parse(Run r) throws IOException {
        String s = r.out().trim();
        assertTrue(s.startsWith("{") && s.endsWith("}"), "stdout is one JSON object: " + r.out());
        return JSON.readTree(s);
    }

    static void assertPositive(JsonNode j, String key) {
        JsonNode v = j.get(key);
        assertTrue(v != null && v.isNumber(), key + " is a number: " + j);
        assertTrue(v.asDouble() > 0 && Double.isFinite(v.asDouble()), key + " is positive and finite: " + v);
    }

    static List<Path> files(Path dir) throws IOException {
        try (Stream<Path> s = Files.list(dir)) {
            return s.toList();
        }
    }

    @Test
    void jsonHasTheRequiredKeys(@TempDir Path dir) throws Exception {
        Run r = tiny(dir, "--json");
        assertEquals(0, r.code(), r.out() + r.err());
        JsonNode j = parse(r);
        for (String k : List.of("seq_write_mb_s", "seq_read_mb_s", "rand_read_iops", "fsync_ms", "fsync_p99_ms",
                "file_bytes")) {
            assertPositive(j, k);
        }
        assertEquals(8L << 20, j.get("file_bytes").asLong());
        assertTrue(j.get("page_cache_bypassed").isBoolean(), j.toString());
        assertEquals(dir.toAbsolutePath().normalize().toString(), j.get("dir").asText());
        assertEquals(0.5, j.get("write_rate_derating").asDouble());
        assertTrue(j.get("notes").isArray());
        JsonNode tiers = j.get("tiers");
        assertTrue(tiers.isArray());
        assertEquals(3, tiers.size());
        long[] steps = {1, 60, 3600};
        double[] bpp = {0.46, 4, 8};
        for (int t = 0; t < 3; t++) {
            JsonNode o = tiers.get(t);
            assertEquals(t, o.get("tier").asInt());
            assertEquals(steps[t], o.get("step_seconds").asLong());
            assertEquals(bpp[t], o.get("bytes_per_point").asDouble());
            assertEquals(1L << 30, o.get("quota_bytes").asLong());
            assertPositive(o, "metrics_by_write_rate");
            assertPositive(o, "retention_seconds_per_1000_metrics");
            assertPositive(o, "metrics_for_one_day");
        }
        // Q / (B * 86400 / S) with the defaults
        assertEquals(27_016, tiers.get(0).get("metrics_for_one_day").asLong());
        assertEquals(186_413, tiers.get(1).get("metrics_for_one_day").asLong());
        assertEquals(5_592_405, tiers.get(2).get("metrics_for_one_day").asLong());
        assertEquals(List.of(), files(dir), "the test file is gone");
    }

    @Test
    void tierOptionsShapeTheTiers(@TempDir Path dir) throws Exception {
        Run r = tiny(dir, "--json", "--tiers", "4", "--tier-grouping", "10", "--quota-mb", "100,200",
                "--bytes-per-point", "1,2");
        assertEquals(0, r.code(), r.out() + r.err());
        JsonNode tiers = parse(r).get("tiers");
        assertEquals(4, tiers.size());
        assertEquals(1000, tiers.get(3).get("step_seconds").asLong());
        assertEquals(200L << 20, tiers.get(3).get("quota_bytes").asLong());
        assertEquals(2.0, tiers.get(3).get("bytes_per_point").asDouble());
        // 200 MiB * 10 s / (1000 * 2 B) for tier 1 = 209715200 * 10 / 2000
        assertEquals(1_048_576.0, tiers.get(1).get("retention_seconds_per_1000_metrics").asDouble(), 1e-9);
    }

    @Test
    void bufferedSaysSoInBothOutputs(@TempDir Path dir) throws Exception {
        Run r = tiny(dir, "--json", "--buffered", "--queue-depth", "2");
        assertEquals(0, r.code(), r.out() + r.err());
        JsonNode j = parse(r);
        assertFalse(j.get("page_cache_bypassed").asBoolean());
        assertEquals(2, j.get("queue_depth").asInt());
        assertTrue(j.get("notes").toString().contains("page cache"), j.toString());

        Run text = tiny(dir, "--buffered");
        assertEquals(0, text.code(), text.out() + text.err());
        assertTrue(text.out().contains("page cache NOT bypassed"), text.out());
        assertEquals(List.of(), files(dir));
    }

    @Test
    void textIsATable(@TempDir Path dir) throws Exception {
        Run r = tiny(dir);
        assertEquals(0, r.code(), r.out() + r.err());
        for (String s : List.of("sequential write", "sequential read", "random read", "fsync", "MB/s", "IOPS",
                "metrics by write rate", "retention per 1000 metrics", "metrics for 1 day", "derated to 50 %",
                "floor(0.5 * W * S / B)", "Q * S / (1000 * B)", "floor(Q / (B * max(1, 86400 / S)))")) {
            assertTrue(r.out().contains(s), s + " in\n" + r.out());
        }
        assertEquals("", r.err());
        assertEquals(List.of(), files(dir));
    }

    @Test
    void missingDirectoryIsExitTwoWithOneClearLine(@TempDir Path dir) {
        Path missing = dir.resolve("nope");
        Run r = run("disk-check", missing.toString(), "--json");
        assertEquals(2, r.code());
        assertEquals("", r.out());
        assertEquals("strata disk-check: " + missing + ": no such directory", r.err().trim());
        assertFalse(Files.exists(missing));
    }

    @Test
    void fileAsDirectoryIsExitTwo(@TempDir Path dir) throws Exception {
        Path file = Files.writeString(dir.resolve("f"), "x");
        Run r = run("disk-check", file.toString());
        assertEquals(2, r.code());
        assertEquals("", r.out());
        assertEquals("strata disk-check: " + file + ": not a directory", r.err().trim());
    }

    @Test
    void jsonNumbersArePlainAndTinyValuesStayPositive() {
        assertEquals("16106127.4", DiskCheckCommand.round(1.61061274E7, 1).toPlainString());
        assertEquals("2000", DiskCheckCommand.round(2000.0, 1).toPlainString());
        assertEquals("0.000412", DiskCheckCommand.round(0.00041234, 3).toPlainString());
        assertEquals("0", DiskCheckCommand.round(0.0, 3).toPlainString());
    }

    @Test
    void usageErrors(@TempDir Path dir) {
        assertEquals(2, run("disk-check").code());
        assertEquals(2, run("disk-check", dir.toString(), "--bogus").code());
        Run tooManyQuotas = run("disk-check", dir.toString(), "--tiers", "2", "--quota-mb", "1,2,3");
        assertEquals(2, tooManyQuotas.code());
        assertTrue(tooManyQuotas.err().contains("3 quotas given for 2 tier(s)"), tooManyQuotas.err());
        assertEquals(2, run("disk-check", dir.toString(), "--size-mb", "0").code());
        assertEquals(2, run("disk-check", dir.toString(), "--tiers", "6").code());
        assertEquals(2, run("disk-check", dir.toString(), "--queue-depth", "0").code());
        assertEquals(2, run("disk-check", dir.toString(), "--bytes-per-point", "0").code());
        Run help = run("disk-check", "--help");
        assertEquals(0, help.code());
        assertTrue(help.out().contains("--size-mb") && help.out().contains("--json"), help.out());
    }
}
