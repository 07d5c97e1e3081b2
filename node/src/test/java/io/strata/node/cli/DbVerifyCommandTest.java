package io.strata.node.cli;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.strata.engine.DiskFormat;
import io.strata.engine.EngineConfig;
import io.strata.engine.EngineTestSupport;
import io.strata.engine.StorageEngine;
import io.strata.engine.io.FileChannelIo;
import io.strata.engine.io.FileHandle;
import io.strata.engine.io.FileIo;
import io.strata.engine.io.ForwardingFileIo;

import io.strata.engine.page.StorageNumber;
import io.strata.engine.verify.DbVerifier;
import picocli.CommandLine;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.RandomAccessFile;
import java.io.StringWriter;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

/** {@code strata db verify}, run in-process on databases written by the engine, intact and damaged. */
class DbVerifyCommandTest {

    static final long T0 = 1_700_000_000L;
    static final int SECONDS = 3000;
    static final int CHARTS = 10;
    static final int DIMS = 6;
    static final ObjectMapper JSON = new ObjectMapper().enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);

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

    record Written(long points, long gaps) {
    }

    /** SECONDS seconds of CHARTS x DIMS metrics in 128 KiB datafiles; metric 0 misses every 97th second. */
    static Written populate(Path dir) throws IOException {
        long points = 0;
        long gaps = 0;
        try (StorageEngine e = StorageEngine.open(EngineConfig.defaults(dir).withDatafileMaxBytes(128 * 1024))) {
            int[] ids = EngineTestSupport.define(e, CHARTS, DIMS);
            for (long t = T0; t < T0 + SECONDS; t++) {
                for (int i = 0; i < ids.length; i++) {
                    int m = ids[i];
                    boolean stored;
                    if (i == 0 && t % 97 == 0) {
                        stored = e.storeGap(m, t, 1);
                        gaps++;
                    } else {
                        stored = e.store(m, t, 1, EngineTestSupport.value(m, t), StorageNumber.SN_DEFAULT_FLAGS);
                    }
                    assertTrue(stored);
                    points++;
                }
            }
        }
        return new Written(points, gaps);
    }

    static List<Path> tierFiles(Path dir, String suffix) throws IOException {
        try (Stream<Path> s = Files.list(dir.resolve("tier0"))) {
            return s.filter(p -> p.getFileName().toString().endsWith(suffix)).sorted().toList();
        }
    }

    static Path journalV2Of(Path datafile) {
        return datafile.resolveSibling(datafile.getFileName().toString().replace("datafile", "journalfile")
                .replace(DiskFormat.DATAFILE_SUFFIX, DiskFormat.JOURNAL_V2_SUFFIX));
    }

    /** Every file and directory under {@code dir} with its bytes (directories map to an empty array). */
    static Map<String, byte[]> snapshot(Path dir) throws IOException {
        Map<String, byte[]> m = new TreeMap<>();
        try (Stream<Path> s = Files.walk(dir)) {
            for (Path p : s.toList()) {
                m.put(dir.relativize(p).toString(), Files.isDirectory(p) ? new byte[0] : Files.readAllBytes(p));
            }
        }
        return m;
    }

    static void assertUnchanged(Map<String, byte[]> before, Path dir) throws IOException {
        Map<String, byte[]> after = snapshot(dir);
        assertEquals(before.keySet(), after.keySet(), "verify created or removed files");
        for (Map.Entry<String, byte[]> e : before.entrySet()) {
            assertEquals(e.getValue().length, after.get(e.getKey()).length, "size of " + e.getKey());
            assertArrayEquals(e.getValue(), after.get(e.getKey()), "bytes of " + e.getKey());
        }
    }

    static JsonNode parse(Run r) throws IOException {
        String s = r.out().trim();
        assertTrue(s.startsWith("{") && s.endsWith("}"), "stdout is one JSON object: " + r.out());
        return JSON.readTree(s);
    }

    static List<String> strings(JsonNode array) {
        List<String> out = new ArrayList<>();
        array.forEach(n -> out.add(n.asText()));
        return out;
    }

    @Test
    void intactDatabaseJson(@TempDir Path dir) throws Exception {
        Written w = populate(dir);
        Map<String, byte[]> before = snapshot(dir);
        Run r = run("db", "verify", dir.toString(), "--json");
        assertEquals(0, r.code(), r.out() + r.err());
        JsonNode j = parse(r);
        assertEquals(dir.toString(), j.get("dir").asText());
        assertTrue(j.get("intact").asBoolean());
        assertTrue(j.get("errors").isArray());
        assertEquals(0, j.get("errors").size(), j.get("errors").toString());
        assertTrue(j.get("notes").isArray());
        assertEquals(1, j.get("hosts").asInt());
        assertEquals(CHARTS, j.get("charts").asInt());
        assertEquals(CHARTS * DIMS, j.get("dimensions").asInt());
        assertEquals(3, j.get("tiers").size(), "the engine's default of 3 tiers");
        JsonNode t1 = j.get("tiers").get(1);
        assertEquals(1, t1.get("tier").asInt());
        assertTrue(t1.get("points").asLong() > 0, "tier 1 holds aggregates");
        assertTrue(t1.get("points").asLong() <= w.points() / 60 + (long) CHARTS * DIMS * 2, t1.toString());
        JsonNode t = j.get("tiers").get(0);
        assertEquals(0, t.get("tier").asInt());
        int datafiles = tierFiles(dir, DiskFormat.DATAFILE_SUFFIX).size();
        assertTrue(datafiles >= 2, "the test wants several datafiles, got " + datafiles);
        assertEquals(datafiles, t.get("datafiles").asInt());
        assertEquals(tierFiles(dir, DiskFormat.JOURNAL_V1_SUFFIX).size(), t.get("journals_v1").asInt());
        assertEquals(tierFiles(dir, DiskFormat.JOURNAL_V2_SUFFIX).size(), t.get("journals_v2").asInt());
        assertEquals(w.points(), t.get("points").asLong(), "points equal what was written");
        assertEquals(w.gaps(), t.get("gap_points").asLong());
        assertTrue(t.get("extents").asLong() > 0);
        assertTrue(t.get("pages").asLong() >= (long) CHARTS * DIMS * SECONDS / DiskFormat.pagePoints(0));
        long bytes = 0;
        try (Stream<Path> s = Files.list(dir.resolve("tier0"))) {
            for (Path p : s.toList()) {
                bytes += Files.size(p);
            }
        }
        assertEquals(bytes, t.get("bytes_on_disk").asLong());
        assertEquals((double) bytes / w.points(), t.get("bytes_per_sample").asDouble(), 0.001);
        assertUnchanged(before, dir);
    }

    @Test
    void intactDatabaseText(@TempDir Path dir) throws Exception {
        Written w = populate(dir);
        Run r = run("db", "verify", dir.toString());
        assertEquals(0, r.code(), r.out() + r.err());
        assertTrue(r.out().contains("database  " + dir), r.out());
        assertTrue(r.out().contains("1 host, " + CHARTS + " charts, " + CHARTS * DIMS + " dimensions"), r.out());
        assertTrue(r.out().contains(w.points() + " points (" + w.gaps() + " gap point(s))"), r.out());
        assertTrue(r.out().contains("bytes per sample"), r.out());
        assertTrue(r.out().contains("errors    none"), r.out());
        assertTrue(r.out().contains("result    INTACT"), r.out());
    }

    @Test
    void flippedByteInAnExtentIsAChecksumError(@TempDir Path dir) throws Exception {
        populate(dir);
        Path df = tierFiles(dir, DiskFormat.DATAFILE_SUFFIX).get(0);
        Files.delete(journalV2Of(df));
        long at;
        try (RandomAccessFile f = new RandomAccessFile(df.toFile(), "rw")) {
            byte[] hdr = new byte[DiskFormat.EXTENT_HEADER_SIZE];
            f.seek(DiskFormat.DATAFILE_SUPERBLOCK_SIZE);
            f.readFully(hdr);
            ByteBuffer h = ByteBuffer.wrap(hdr).order(ByteOrder.LITTLE_ENDIAN);
            assertEquals(DiskFormat.EXTENT_MAGIC, h.getInt(0));
            int pages = Short.toUnsignedInt(h.getShort(6));
            int stored = h.getInt(8);
            // a byte in the middle of the first extent's compressed payload
            at = DiskFormat.DATAFILE_SUPERBLOCK_SIZE + DiskFormat.EXTENT_HEADER_SIZE
                    + (long) pages * DiskFormat.PAGE_DESCRIPTOR_SIZE + stored / 2;
            f.seek(at);
            int b = f.read();
            f.seek(at);
            f.write(b ^ 0x5A);
        }
        Map<String, byte[]> before = snapshot(dir);

        Run r = run("db", "verify", dir.toString(), "--json");
        assertEquals(1, r.code(), r.out() + r.err());
        JsonNode j = parse(r);
        assertFalse(j.get("intact").asBoolean());
        List<String> errors = strings(j.get("errors"));
        assertTrue(errors.stream().anyMatch(e -> e.contains(df.getFileName().toString()) && e.contains("checksum")),
                errors::toString);
        assertTrue(errors.stream().anyMatch(e -> e.contains("@" + DiskFormat.DATAFILE_SUPERBLOCK_SIZE)), errors::toString);
        assertUnchanged(before, dir);

        Run text = run("db", "verify", dir.toString());
        assertEquals(1, text.code());
        assertTrue(text.out().contains("result    DAMAGED"), text.out());
        assertTrue(text.out().contains(df.getFileName().toString()), text.out());
        assertUnchanged(before, dir);
    }

    @Test
    void truncatedLastDatafileIsDamage(@TempDir Path dir) throws Exception {
        populate(dir);
        List<Path> dfs = tierFiles(dir, DiskFormat.DATAFILE_SUFFIX);
        Path last = dfs.get(dfs.size() - 1);
        long size = Files.size(last);
        assertTrue(size > DiskFormat.DATAFILE_SUPERBLOCK_SIZE + 100, "the last datafile holds extents");
        try (RandomAccessFile f = new RandomAccessFile(last.toFile(), "rw")) {
            f.setLength(size - 100);
        }
        Map<String, byte[]> before = snapshot(dir);

        Run r = run("db", "verify", dir.toString(), "--json");
        assertEquals(1, r.code(), r.out() + r.err());
        JsonNode j = parse(r);
        assertFalse(j.get("intact").asBoolean());
        List<String> errors = strings(j.get("errors"));
        assertTrue(errors.stream().anyMatch(e -> e.contains(last.getFileName().toString())
                && e.contains("end of the file")), errors::toString);
        assertTrue(errors.stream().anyMatch(e -> e.contains("read-only")), "says it left the file as is: " + errors);
        assertUnchanged(before, dir);
    }

    @Test
    void damagedMetadataLogIsReportedAndNotCut(@TempDir Path dir) throws Exception {
        populate(dir);
        Path md = dir.resolve(DiskFormat.METADATA_FILE);
        long size = Files.size(md);
        try (RandomAccessFile f = new RandomAccessFile(md.toFile(), "rw")) {
            f.setLength(size - 3);   // a torn last record
        }
        Map<String, byte[]> before = snapshot(dir);
        Run r = run("db", "verify", dir.toString(), "--json");
        assertEquals(1, r.code(), r.out() + r.err());
        List<String> errors = strings(parse(r).get("errors"));
        assertTrue(errors.stream().anyMatch(e -> e.startsWith(md.toString())), errors::toString);
        assertUnchanged(before, dir);
    }

    @Test
    void missingDirectoryIsAUsageError(@TempDir Path dir) {
        Path missing = dir.resolve("no-such-db");
        Run r = run("db", "verify", missing.toString(), "--json");
        assertEquals(2, r.code());
        assertEquals("", r.out());
        assertTrue(r.err().contains(missing + ": no such directory"), r.err());
        assertFalse(Files.exists(missing), "verify does not create the directory");
    }

    @Test
    void directoryWithoutADatabaseIsAUsageError(@TempDir Path dir) throws Exception {
        Run r = run("db", "verify", dir.toString());
        assertEquals(2, r.code());
        assertEquals("", r.out());
        assertTrue(r.err().contains("not a Strata database"), r.err());
        try (Stream<Path> s = Files.list(dir)) {
            assertEquals(0, s.count());
        }
    }

    /**
     * A tier whose files live in their own directory ({@code [db] dbengine tier N directory}) is
     * verified there when the node's configuration is given; DIR defaults to the node's database.
     */
    @Test
    void theNodesConfigurationPointsAtEachTiersDirectory(@TempDir Path tmp) throws Exception {
        Path conf = Files.createDirectories(tmp.resolve("conf"));
        Path far = tmp.resolve("other-disk/tier1");
        Files.writeString(conf.resolve("netdata.conf"), "[global]\n    hostname = t\n[db]\n    storage tiers = 2\n"
                + "    dbengine tier 1 update every iterations = 2\n    dbengine tier 1 directory = " + far + "\n"
                + "[directories]\n    cache = " + tmp.resolve("cache") + "\n    lib = " + tmp.resolve("lib") + "\n");
        io.strata.node.config.NodeConfig nc = io.strata.node.config.NodeConfig.load(conf);
        EngineConfig ec = nc.engineConfig().withClockSeconds(() -> T0 + SECONDS);
        try (StorageEngine e = StorageEngine.open(ec)) {
            int[] ids = EngineTestSupport.define(e, 2, 3);
            for (long t = T0; t < T0 + SECONDS; t++) {
                for (int m : ids) {
                    assertTrue(e.store(m, t, 1, EngineTestSupport.value(m, t), StorageNumber.SN_DEFAULT_FLAGS));
                }
            }
        }
        try (var files = Files.list(far)) {
            assertTrue(files.findAny().isPresent(), "tier 1 wrote to its own directory");
        }

        Run bare = run("db", "verify", "--json", nc.dbDir().toString());
        List<Integer> tiersSeen = new ArrayList<>();
        parse(bare).get("tiers").forEach(t -> tiersSeen.add(t.get("tier").asInt()));
        assertEquals(List.of(0), tiersSeen, "without the configuration only the default place is seen");

        for (Run r : List.of(run("db", "verify", "--json", "--config", conf.toString()),
                run("db", "verify", "--json", "--config", conf.toString(), nc.dbDir().toString()))) {
            assertEquals(0, r.code(), r.out() + r.err());
            JsonNode root = parse(r);
            assertEquals(2, root.get("tiers").size(), root.toString());
            JsonNode t1 = root.get("tiers").get(1);
            assertEquals(1, t1.get("tier").asInt());
            assertTrue(t1.get("datafiles").asInt() > 0 && t1.get("points").asLong() > 0, t1.toString());
        }
        Run badConf = run("db", "verify", "--config", tmp.resolve("nowhere").toString());
        assertEquals(2, badConf.code(), badConf.err());
    }

    @Test
    void usageErrors() {
        assertEquals(2, run("db", "verify").code());
        assertEquals(2, run("db", "verify", "a", "b").code());
        assertEquals(2, run("db", "verify", "--bogus", "x").code());
        assertEquals(2, run("db").code());
        assertEquals(2, run().code());
        Run help = run("db", "verify", "--help");
        assertEquals(0, help.code());
        assertTrue(help.out().contains("--json"), help.out());
        Run version = run("--version");
        assertEquals(0, version.code());
        assertTrue(version.out().startsWith("strata "), version.out());
    }

    /** Every file call the verifier makes inside the database directory opens for reading only. */
    @Test
    void verifierOnlyReadsTheDatabaseDirectory(@TempDir Path dir) throws Exception {
        populate(dir);
        Path df = tierFiles(dir, DiskFormat.DATAFILE_SUFFIX).get(0);
        Files.delete(journalV2Of(df));
        try (RandomAccessFile f = new RandomAccessFile(df.toFile(), "rw")) {
            f.setLength(Files.size(df) - 10);
        }
        List<String> calls = Collections.synchronizedList(new ArrayList<>());
        FileIo recording = new RecordingIo(FileChannelIo.INSTANCE, dir, calls);
        DbVerifier.Result r = DbVerifier.verify(recording, dir);
        assertFalse(r.intact());
        assertTrue(calls.isEmpty(), "calls that could change the database: " + calls);
    }

    @Test
    void readOnlyFilesCanBeVerified(@TempDir Path dir) throws Exception {
        populate(dir);
        List<Path> all;
        try (Stream<Path> s = Files.walk(dir)) {
            all = s.filter(Files::isRegularFile).toList();
        }
        for (Path p : all) {
            assertTrue(p.toFile().setWritable(false, false));
        }
        try {
            assumeFalse(Files.isWritable(all.get(0)), "running as a user who may write read-only files (root)");
            Run r = run("db", "verify", dir.toString(), "--json");
            assertEquals(0, r.code(), r.out() + r.err());
        } finally {
            for (Path p : all) {
                p.toFile().setWritable(true, true);
            }
        }
    }

    /**
     * The node's logback.xml configures without a single warning (logback prints its problems on
     * stdout, which would break the JSON output) and sends everything to stderr.
     */
    @Test
    void logbackConfigurationIsCleanAndLogsToStderr() throws Exception {
        java.net.URL url = StrataMain.class.getClassLoader().getResource("logback.xml");
        assertTrue(url != null && url.toString().contains("classes"), "node's own logback.xml: " + url);
        ch.qos.logback.classic.LoggerContext ctx = new ch.qos.logback.classic.LoggerContext();
        ch.qos.logback.classic.joran.JoranConfigurator jc = new ch.qos.logback.classic.joran.JoranConfigurator();
        jc.setContext(ctx);
        jc.doConfigure(url);
        List<ch.qos.logback.core.status.Status> bad = ctx.getStatusManager().getCopyOfStatusList().stream()
                .filter(st -> st.getEffectiveLevel() >= ch.qos.logback.core.status.Status.WARN).toList();
        assertTrue(bad.isEmpty(), bad::toString);
        ch.qos.logback.classic.Logger root = ctx.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
        assertEquals(ch.qos.logback.classic.Level.INFO, root.getLevel());
        assertEquals(ch.qos.logback.classic.Level.WARN, ctx.getLogger("net.openhft").getLevel());
        ch.qos.logback.core.ConsoleAppender<?> app = (ch.qos.logback.core.ConsoleAppender<?>) root.getAppender("STDERR");
        assertEquals("System.err", app.getTarget());
        ctx.stop();
    }

    /** Records every open for writing and every change under {@code root}; delegates all calls. */
    static final class RecordingIo extends ForwardingFileIo {
        private final Path root;
        private final List<String> calls;

        RecordingIo(FileIo io, Path root, List<String> calls) {
            super(io);
            this.root = root;
            this.calls = calls;
        }

        List<String> calls() {
            return calls;
        }

        private void record(String what, Path p) {
            if (p.toAbsolutePath().startsWith(root.toAbsolutePath())) {
                calls.add(what + " " + p);
            }
        }

        @Override
        public FileHandle open(Path path, OpenMode mode) throws IOException {
            if (mode != OpenMode.READ) {
                record("open " + mode, path);
            }
            return delegate.open(path, mode);
        }

        @Override
        public void rename(Path from, Path to) throws IOException {
            record("rename", from);
            record("rename to", to);
            delegate.rename(from, to);
        }

        @Override
        public boolean delete(Path path) throws IOException {
            record("delete", path);
            return delegate.delete(path);
        }

        @Override
        public void createDirectories(Path d) throws IOException {
            record("createDirectories", d);
            delegate.createDirectories(d);
        }

        @Override
        public void syncDirectory(Path d) throws IOException {
            record("syncDirectory", d);
            delegate.syncDirectory(d);
        }
    }
}
