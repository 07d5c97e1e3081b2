package io.strata.streaming.receiver;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.strata.engine.EngineConfig;
import io.strata.engine.StorageEngine;
import io.strata.engine.meta.ChartInfo;
import io.strata.engine.meta.DimensionInfo;
import io.strata.engine.meta.HostInfo;
import io.strata.engine.meta.MetadataStore;
import io.strata.engine.page.StorageNumber;
import io.strata.streaming.auth.StreamAuthorizer;
import io.strata.streaming.auth.StreamConfig;
import io.strata.streaming.config.IniFile;
import io.strata.streaming.server.StreamServer;
import io.strata.streaming.wire.LineSplitter;
import io.strata.streaming.wire.Lz4StreamFrameEncoder;
import io.strata.streaming.wire.StreamProtocolException;
import io.strata.testsupport.Fuzz;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import java.util.stream.Stream;
import java.util.zip.GZIPInputStream;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Seeded fuzzing of the parent's stream path, from the parser up to a real server.
 *
 * <p>In process, {@link ReceiverParser} gets the real 1.37.1 captures with mutated lines (bytes,
 * words, numbers, quotes, keywords, truncation, splices, huge numbers, NaN/inf, unknown ids, lines
 * dropped, doubled or out of order), structured random lines, and floods of definitions beyond
 * small {@link ReceiverLimits}. Only {@link StreamProtocolException} may leave {@code line()}; after
 * one, the engine still stores and answers (a sentinel metric) and what a clean stream stored before
 * is unchanged; a connection never holds more charts, dimensions, labels or variables than the limits.
 *
 * <p>Over sockets, a {@link StreamServer} takes garbage, broken requests, mutated plain captures and
 * mutated LZ4 frames on several connections at once while one good connection replays a capture: the
 * good stream's points are exactly those of a clean in-process parse, nothing is logged as an internal
 * error, and the server still accepts streams afterwards.
 *
 * <p>The budget {@code -Dstrata.fuzz.inputs} ({@link Fuzz}, 20 000 in a normal build) sets the number of
 * fuzzed inputs: each test scales it to its own unit (a session of a capture is many lines, a socket
 * round many connections) and prints the count and base seed at its start ({@code -Dstrata.fuzz.seed});
 * every failure names the seed that reproduces it.
 */
class ReceiverFuzzTest {

    private static final int ITERATIONS = Fuzz.inputsAsInt();
    private static final long BASE_SEED = Fuzz.seed(0x5EED_0137_4L);
    /** The captures' own epoch (their first CHART_DEFINITION_END): our clocks run from there. */
    static final long T0_SECONDS = 1_795_262_950L;
    static final String KEY = ReceiverVectorsTest.KEY;
    /** The plain capture's child: the clean baseline (part a) and the good connection (part b). */
    static final UUID PLAIN_GUID = UUID.fromString("5b8185c0-e5a4-11f1-9d33-02fc00000001");
    static final UUID LZ4_GUID = UUID.fromString("8690c028-e5a4-11f1-869b-02fc00000001");
    /** Limits for the capture fuzz: the captures fit (217 charts, at most ~40 dimensions a chart). */
    static final ReceiverLimits CAPTURE_LIMITS = new ReceiverLimits(LineSplitter.NETDATA_MAX_LINE_BYTES, 400, 128,
            64, 64 * 1024);
    /** Sessions per engine in part (a): a new engine then bounds metadata and files for -Pfuzz runs. */
    private static final int SESSIONS_PER_ENGINE = 2000;

    @TempDir
    Path dir;

    // ================================================================ corpus

    /** A capture's stream after the handshake, as lines (without '\n'; a final partial line dropped). */
    record Capture(String name, byte[][] lines) {
    }

    /** The captures, loaded once for all tests. */
    static final class Corpus {
        static final Capture PLAIN;
        static final Capture LZ4_TEXT;
        static final Capture REPLICATION;
        static final byte[] PLAIN_SESSION;
        static final byte[] LZ4_SESSION;
        static final byte[] LZ4_TEXT_BYTES;
        static final byte[] REPLICATION_SESSION;
        /** Every line of every capture: donors for splices and out-of-order lines. */
        static final byte[][] ALL_LINES;

        static {
            try {
                PLAIN_SESSION = ReceiverVectorsTest.resource("01-plain-child_to_parent.raw.gz");
                LZ4_SESSION = ReceiverVectorsTest.resource("02-lz4-child_to_parent.raw.gz");
                REPLICATION_SESSION = ReceiverVectorsTest.resource("03-replication-conn3_c2p.raw.gz");
                try (InputStream in = new GZIPInputStream(ReceiverFuzzTest.class.getResourceAsStream(
                        "/vectors/netdata-1.37.1/02-child-to-fakeparent-lz4/child_to_parent.decompressed.txt.gz"))) {
                    LZ4_TEXT_BYTES = in.readAllBytes();
                }
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            PLAIN = new Capture("plain", lines(PLAIN_SESSION, ReceiverVectorsTest.headEnd(PLAIN_SESSION)));
            LZ4_TEXT = new Capture("lz4-text", lines(LZ4_TEXT_BYTES, 0));
            REPLICATION = new Capture("replication", condenseReplication(
                    lines(REPLICATION_SESSION, ReceiverVectorsTest.headEnd(REPLICATION_SESSION)), 3000));
            List<byte[]> all = new ArrayList<>();
            all.addAll(Arrays.asList(PLAIN.lines()));
            all.addAll(Arrays.asList(LZ4_TEXT.lines()));
            all.addAll(Arrays.asList(REPLICATION.lines()));
            ALL_LINES = all.toArray(new byte[0][]);
        }

        static Capture[] captures() {
            return new Capture[]{PLAIN, LZ4_TEXT, REPLICATION};
        }
    }

    static byte[][] lines(byte[] text, int from) {
        List<byte[]> out = new ArrayList<>();
        int start = from;
        for (int i = from; i < text.length; i++) {
            if (text[i] == '\n') {
                out.add(Arrays.copyOfRange(text, start, i));
                start = i + 1;
            }
        }
        return out.toArray(new byte[0][]);
    }

    /**
     * The replication capture has 33 000 lines of replication answers before its live data: keep the
     * whole answers (RBEGIN .. REND) up to {@code keepReplicationLines} of them, all other lines, in order.
     */
    static byte[][] condenseReplication(byte[][] lines, int keepReplicationLines) {
        List<byte[]> out = new ArrayList<>();
        int kept = 0;
        boolean inAnswer = false;
        boolean keepAnswer = false;
        for (byte[] l : lines) {
            boolean replication = startsWith(l, "RBEGIN ") || startsWith(l, "RSET ") || startsWith(l, "RDSTATE ")
                    || startsWith(l, "RSSTATE ") || startsWith(l, "REND ");
            if (!replication) {
                out.add(l);
                continue;
            }
            if (!inAnswer) {
                inAnswer = true;
                keepAnswer = kept < keepReplicationLines;
            }
            if (keepAnswer) {
                out.add(l);
                kept++;
            }
            if (startsWith(l, "REND ")) {
                inAnswer = false;
            }
        }
        return out.toArray(new byte[0][]);
    }

    static boolean startsWith(byte[] line, String prefix) {
        if (line.length < prefix.length()) {
            return false;
        }
        for (int i = 0; i < prefix.length(); i++) {
            if (line[i] != prefix.charAt(i)) {
                return false;
            }
        }
        return true;
    }

    static byte[] ascii(String s) {
        return s.getBytes(StandardCharsets.ISO_8859_1);
    }

    static String show(byte[] line) {
        String s = new String(line, 0, Math.min(line.length, 300), StandardCharsets.ISO_8859_1);
        return "'" + s + (line.length > 300 ? "...' (" + line.length + " bytes)" : "'");
    }

    // ================================================================ engine probes

    /** A clock for the parser that moves on by {@code stepMicros} at every call, the same on every run. */
    static LongSupplier stepClock(long startMicros, long stepMicros) {
        long[] now = {startMicros};
        return () -> (now[0] += stepMicros) - stepMicros;
    }

    /** A metric of its own host that a failing stream must not disturb: every check stores and reads back a point. */
    static final class Sentinel {
        private final StorageEngine engine;
        private final int metric;
        private long nextSecond = T0_SECONDS - 1_000_000;

        Sentinel(StorageEngine engine) {
            this.engine = engine;
            UUID host = UUID.nameUUIDFromBytes(ascii("strata-fuzz-sentinel"));
            MetadataStore meta = engine.metadata();
            meta.upsertHost(new HostInfo(host, "sentinel", "linux", "UTC", 1, Map.of()));
            meta.upsertChart(ChartInfo.of(host, "sentinel.probe", 1));
            this.metric = meta.upsertDimension(DimensionInfo.of(host, "sentinel.probe", "value"));
        }

        void check(String context) throws IOException {
            long t = nextSecond++;
            double value = t % 100_000;
            assertTrue(engine.store(metric, t, 1, value, StorageNumber.SN_DEFAULT_FLAGS),
                    context + ": the engine refused a sentinel point");
            double[] got = {Double.NaN};
            long n = engine.queryTier0(metric, t, t, (time, sn) -> got[0] = StorageNumber.unpack(sn));
            assertEquals(1, n, context + ": sentinel point not found");
            assertEquals(value, got[0], 1e-6, context + ": sentinel point changed");
        }
    }

    /** Tier-0 points of some metrics of a clean stream, to compare with later. */
    static final class Baseline {
        private final int[] metrics;
        private final long[][] points;

        Baseline(StorageEngine engine, UUID host, int wanted) throws IOException {
            MetadataStore meta = engine.metadata();
            int hostId = meta.hostId(host);
            assertTrue(hostId >= 0, "baseline host unknown");
            List<Integer> charts = meta.charts(hostId);
            List<Integer> chosen = new ArrayList<>();
            for (int i = 0; i < charts.size() && chosen.size() < wanted; i += Math.max(1, charts.size() / wanted)) {
                List<Integer> ms = meta.metrics(charts.get(i));
                if (!ms.isEmpty()) {
                    chosen.add(ms.get(ms.size() / 2));
                }
            }
            metrics = chosen.stream().mapToInt(Integer::intValue).toArray();
            points = new long[metrics.length][];
            long total = 0;
            for (int i = 0; i < metrics.length; i++) {
                points[i] = read(engine, metrics[i]);
                total += points[i].length / 2;
            }
            assertTrue(metrics.length >= wanted / 2 && total >= 5L * metrics.length,
                    "the clean stream stored too little to compare: " + total + " points in " + metrics.length
                            + " metrics");
        }

        void check(StorageEngine current, String context) throws IOException {
            for (int i = 0; i < metrics.length; i++) {
                assertArrayEquals(points[i], read(current, metrics[i]),
                        context + ": points stored before the fuzzing changed (metric " + metrics[i] + ")");
            }
        }
    }

    /** All tier-0 points of a metric as (time, storage number) pairs. */
    static long[] read(StorageEngine engine, int metric) throws IOException {
        List<long[]> got = new ArrayList<>();
        engine.queryTier0(metric, 1, 0xFFFF_FFFFL, (t, sn) -> got.add(new long[]{t, sn}));
        long[] flat = new long[got.size() * 2];
        for (int i = 0; i < got.size(); i++) {
            flat[2 * i] = got.get(i)[0];
            flat[2 * i + 1] = got.get(i)[1];
        }
        return flat;
    }

    static ReceiverParser parser(StorageEngine engine, UUID guid, ReceiverLimits limits, ReceiverStats stats,
                                 LongSupplier clock, long[] commandsSent, List<String> functionResults) {
        HostInfo host = new HostInfo(guid, "fuzz-" + guid.toString().substring(0, 8), "linux", "UTC", 1, null);
        return new ReceiverParser(engine, host, line -> commandsSent[0]++, ReceiverReplication.NONE, true,
                limits, stats, clock, (transaction, status, type, expires, payload) -> {
                    if (functionResults != null) {
                        functionResults.add(payload);
                    }
                });
    }

    /**
     * Hands one line to the parser from the middle of a larger array with foreign bytes around it
     * (the parser must keep to its range). Returns false when the parser refused the line; anything
     * other than {@link StreamProtocolException} fails the test with the seed.
     */
    static boolean offer(ReceiverParser p, byte[] line, byte[] scratch, Random r, String context) {
        return offer(p, line, scratch, r, context, -1);
    }

    /** {@link #offer(ReceiverParser, byte[], byte[], Random, String)} naming the line's number on failure. */
    static boolean offer(ReceiverParser p, byte[] line, byte[] scratch, Random r, String context, int lineNumber) {
        int len = Math.min(line.length, scratch.length - 16);
        int at = 1 + r.nextInt(8);
        Arrays.fill(scratch, 0, at, (byte) '"');
        System.arraycopy(line, 0, scratch, at, len);
        scratch[at + len] = '"';
        scratch[at + len + 1] = '7';
        try {
            p.line(scratch, at, at + len);
            return true;
        } catch (StreamProtocolException e) {
            String m = e.getMessage();
            assertTrue(m != null && !m.isBlank(), () -> context + ": a protocol exception without a message");
            return false;
        } catch (Throwable t) {
            throw new AssertionError(context + (lineNumber >= 0 ? " line " + lineNumber : "") + ": "
                    + show(Arrays.copyOf(line, len)) + " threw " + t, t);
        }
    }

    // ================================================================ mutations

    static final String[] KEYWORDS = {"SET", "BEGIN", "END", "RSET", "RBEGIN", "RDSTATE", "RSSTATE", "REND", "CHART",
            "DIMENSION", "CLABEL", "CLABEL_COMMIT", "CHART_DEFINITION_END", "VARIABLE", "LABEL", "OVERWRITE",
            "CLAIMED_ID", "FUNCTION", "FUNCTION_RESULT_BEGIN", "FUNCTION_RESULT_END", "FLUSH", "DISABLE",
            "BEGIN2", "SET2", "END2", "set", "SETX", "\"SET\"", "REPLAY_CHART", "END_OF_STREAM", "CHART_DEFINITION_ENDX"};

    /** Numbers that break naive parsing: overflow, sign, exponent, specials. */
    static final String[] NASTY_NUMBERS = {"0", "-0", "1", "-1", "+1", "00000000000000000000001",
            "9223372036854775807", "9223372036854775808", "-9223372036854775808", "-9223372036854775809",
            "18446744073709551615", "18446744073709551616", "340282366920938463463374607431768211456",
            "4294967295", "4294967296", "2147483647", "2147483648", "-2147483649", "86400", "86401", "1000000",
            "1e308", "-1e308", "1e309", "-1e309", "4.9e-324", "1e-400", "0.1", "-0.000001",
            "1.7976931348623157e308", "NaN", "nan", "-nan", "NAN", "inf", "-inf", "INF", "Infinity", "-Infinity",
            "0x10", "0xffffffffffffffff", "1_000", "1,5", "12abc", "--1", "+-1", "1e", "e5", ".", "-", ".e1",
            "1795262950", "1795262950000000", "-1795262950", "99999999999"};

    /** Other words: empty, quotes, separators, flags, ids nobody defined, non-ASCII. */
    static final String[] NASTY_WORDS = {"", "\"\"", "''", "\"", "'", "=", "\"=\"", "NULL", "true", "false", "E",
            "R", "ER", "\"E\"", "\"hidden obsolete noreset nooverflow\"", "incremental", "absolute",
            "percentage-of-absolute-row", "percentage-of-incremental-row", "GLOBAL", "HOST", "CHART", "LOCAL",
            "\"no.such_chart\"", "no.such_chart", "\"nosuchdim\"", "nosuchdim", ".", "a.", ".b", "x.y.z",
            "\u00e9\u00e8\u00ff", "\\", "\"a\\\"b\"", "\"unterminated", "'unterminated", "\t", "\r", "a=b",
            "\"system.cpu\"", "\"user\"", "''", "\"\u0000\"", "labels"};

    static final byte[] ALPHABET = ascii(" \t\r==\"\"''\\0123456789.eExX+-naNifINF\u0000\u00ff\u00c3abcSETBEGIN_.");

    /** Edits of a line: bytes, words, numbers, quotes, keywords, splices with other lines. */
    static final class LineMutator {
        private final Random r;
        private final byte[][] donors;

        LineMutator(Random r, byte[][] donors) {
            this.r = r;
            this.donors = donors;
        }

        byte[] mutate(byte[] line) {
            byte[] out = line;
            int edits = 1 + (r.nextInt(4) == 0 ? r.nextInt(4) : 0);
            for (int i = 0; i < edits; i++) {
                out = mutateOnce(out);
            }
            return out;
        }

        byte[] nastyWord() {
            String w = r.nextBoolean() ? NASTY_NUMBERS[r.nextInt(NASTY_NUMBERS.length)]
                    : NASTY_WORDS[r.nextInt(NASTY_WORDS.length)];
            return switch (r.nextInt(4)) {
                case 0 -> ascii("\"" + w + "\"");
                case 1 -> ascii("'" + w + "'");
                default -> ascii(w);
            };
        }

        private byte[] mutateOnce(byte[] l) {
            int op = r.nextInt(16);
            if (l.length == 0 && op < 5) {
                op = 9;
            }
            switch (op) {
                case 0 -> {
                    byte[] o = l.clone();
                    o[r.nextInt(o.length)] ^= (byte) (1 << r.nextInt(8));
                    return o;
                }
                case 1 -> {
                    byte[] o = l.clone();
                    o[r.nextInt(o.length)] = ALPHABET[r.nextInt(ALPHABET.length)];
                    return o;
                }
                case 2 -> {
                    int at = r.nextInt(l.length);
                    return splice(l, at, Math.min(l.length, at + 1 + r.nextInt(16)), new byte[0]);
                }
                case 3 -> {
                    int at = r.nextInt(l.length);
                    int to = Math.min(l.length, at + 1 + r.nextInt(16));
                    return splice(l, at, at, Arrays.copyOfRange(l, at, to));
                }
                case 4 -> {
                    return Arrays.copyOf(l, r.nextInt(l.length));
                }
                case 5, 6 -> {
                    int[] w = randomWord(l);
                    return w == null ? l : splice(l, w[0], w[1], nastyWord());
                }
                case 7 -> {
                    int[] w = words(l).isEmpty() ? null : words(l).get(0);
                    byte[] k = ascii(KEYWORDS[r.nextInt(KEYWORDS.length)]);
                    return w == null ? k : splice(l, w[0], w[1], k);
                }
                case 8 -> {
                    // quote games: drop one, or add one where none belongs
                    for (int tries = 0; tries < 8 && l.length > 0; tries++) {
                        int at = r.nextInt(l.length);
                        if (l[at] == '"' || l[at] == '\'') {
                            return splice(l, at, at + 1, new byte[0]);
                        }
                    }
                    return splice(l, r.nextInt(l.length + 1), -1, new byte[]{(byte) (r.nextBoolean() ? '"' : '\'')});
                }
                case 9 -> {
                    byte[] extra = new byte[0];
                    for (int i = 1 + r.nextInt(4); i > 0; i--) {
                        extra = concat(extra, new byte[]{' '}, nastyWord());
                    }
                    return concat(l, extra);
                }
                case 10 -> {
                    int[] d = digitRun(l);
                    byte[] n = ascii(NASTY_NUMBERS[r.nextInt(NASTY_NUMBERS.length)]);
                    return d == null ? concat(l, new byte[]{' '}, n) : splice(l, d[0], d[1], n);
                }
                case 11 -> {
                    int[] a = randomWord(l);
                    int[] b = randomWord(l);
                    if (a == null || b == null || a[0] == b[0]) {
                        return l;
                    }
                    int[] first = a[0] < b[0] ? a : b;
                    int[] second = a[0] < b[0] ? b : a;
                    if (first[1] > second[0]) {
                        return l;
                    }
                    return concat(Arrays.copyOfRange(l, 0, first[0]), Arrays.copyOfRange(l, second[0], second[1]),
                            Arrays.copyOfRange(l, first[1], second[0]), Arrays.copyOfRange(l, first[0], first[1]),
                            Arrays.copyOfRange(l, second[1], l.length));
                }
                case 12 -> {
                    // a word as long as a line may be
                    int[] w = randomWord(l);
                    byte[] big = new byte[200 + r.nextInt(r.nextBoolean() ? 2000 : 14_000)];
                    Arrays.fill(big, r.nextBoolean() ? (byte) '9' : (byte) 'x');
                    return w == null ? concat(l, new byte[]{' '}, big) : splice(l, w[0], w[1], big);
                }
                case 13 -> {
                    // a word of another captured line (ids of other charts, dimensions of other charts)
                    byte[] donor = donors[r.nextInt(donors.length)];
                    int[] dw = randomWord(donor);
                    int[] w = randomWord(l);
                    if (dw == null || w == null) {
                        return l;
                    }
                    return splice(l, w[0], w[1], Arrays.copyOfRange(donor, dw[0], dw[1]));
                }
                case 14 -> {
                    // the head of this line on the tail of another
                    byte[] donor = donors[r.nextInt(donors.length)];
                    return concat(Arrays.copyOf(l, r.nextInt(l.length + 1)),
                            Arrays.copyOfRange(donor, r.nextInt(donor.length + 1), donor.length));
                }
                default -> {
                    return r.nextBoolean() ? new byte[0] : ascii(" \t \r");
                }
            }
        }

        /** [start, end) of a random word, or null. */
        int[] randomWord(byte[] l) {
            List<int[]> w = words(l);
            return w.isEmpty() ? null : w.get(r.nextInt(w.size()));
        }

        /** [start, end) of the digits around a random position, or null when it holds none. */
        int[] digitRun(byte[] l) {
            int at = l.length == 0 ? -1 : r.nextInt(l.length);
            if (at < 0 || l[at] < '0' || l[at] > '9') {
                return null;
            }
            int s = at;
            int e = at;
            while (s > 0 && l[s - 1] >= '0' && l[s - 1] <= '9') {
                s--;
            }
            while (e < l.length && l[e] >= '0' && l[e] <= '9') {
                e++;
            }
            return new int[]{s, e};
        }
    }

    /** [start, end) of every word (runs of bytes other than space and TAB). */
    static List<int[]> words(byte[] l) {
        List<int[]> out = new ArrayList<>();
        for (int i = 0; i < l.length; i++) {
            if (!blank(l[i]) && (i == 0 || blank(l[i - 1]))) {
                int e = i;
                while (e < l.length && !blank(l[e])) {
                    e++;
                }
                out.add(new int[]{i, e});
            }
        }
        return out;
    }

    static boolean blank(byte b) {
        return b == ' ' || b == '\t';
    }

    /** {@code l} with {@code [from, to)} replaced by {@code with} ({@code to} -1: insert at {@code from}). */
    static byte[] splice(byte[] l, int from, int to, byte[] with) {
        int end = to < 0 ? from : to;
        return concat(Arrays.copyOfRange(l, 0, from), with, Arrays.copyOfRange(l, end, l.length));
    }

    static byte[] concat(byte[]... parts) {
        int n = 0;
        for (byte[] p : parts) {
            n += p.length;
        }
        byte[] out = new byte[n];
        int at = 0;
        for (byte[] p : parts) {
            System.arraycopy(p, 0, out, at, p.length);
            at += p.length;
        }
        return out;
    }

    /** Times where 32-bit seconds, signed ints and the captures' epoch meet their edges. */
    static final long[] EDGE_SECONDS = {0, 1, 2, 86_400, 0x7FFF_FFFFL, 0x8000_0000L, 0xFFFF_FFFEL, 0xFFFF_FFFFL,
            0x1_0000_0000L, T0_SECONDS - 1, T0_SECONDS, T0_SECONDS + 86_400L * 365 * 80, Long.MAX_VALUE / 1_000_000,
            -1, -T0_SECONDS};

    /**
     * A child that mostly follows the protocol: collections (BEGIN, SET of the chart's dimensions,
     * END), replication answers (RBEGIN, timed points with RSET, RDSTATE, RSSTATE, REND),
     * definitions, labels, variables, functions; its clock runs on. Now and then an argument is an
     * edge time or a nasty word, a line is mutated, or a line is pure chaos.
     */
    static final class RandomLines {
        private final Random r;
        private final LineMutator nasty;
        private final String[] charts;
        private final String[] dims;
        private long childSeconds = T0_SECONDS;

        RandomLines(Random r, String[] charts, String[] dims) {
            this.r = r;
            this.nasty = new LineMutator(r, Corpus.ALL_LINES);
            this.charts = charts;
            this.dims = dims;
        }

        /** The next group of lines (a collection, a replication answer, a definition...). */
        List<byte[]> nextBlock() {
            List<String> b = new ArrayList<>();
            switch (r.nextInt(20)) {
                case 0 -> {
                    // 2.x (INTERPOLATED): base64/hex numbers, '#' shortcuts, flags, now and then a nasty word
                    childSeconds++;
                    b.add("BEGIN2 " + chart() + " " + (r.nextInt(20) == 0 ? num() : r.nextBoolean() ? "#B" : "0x1") + " "
                            + (r.nextInt(20) == 0 ? num() : r.nextInt(10) == 0 ? "#" + word() : "#" + base64(childSeconds))
                            + " " + (r.nextBoolean() ? "#" : sec()));
                    for (String d : dims) {
                        if (r.nextInt(8) != 0) {
                            b.add("SET2 " + quoted(d) + " " + (r.nextInt(20) == 0 ? num() : "-#" + base64(r.nextInt(1000)))
                                    + " " + (r.nextInt(3) == 0 ? "#" : r.nextInt(20) == 0 ? "@" + word()
                                    : "@" + base64(Double.doubleToRawLongBits(r.nextDouble() * 1000)))
                                    + " " + (r.nextInt(4) == 0 ? "E" : r.nextInt(4) == 0 ? "''" : r.nextBoolean() ? "A" : "AR"));
                        }
                    }
                    b.add(r.nextInt(30) == 0 ? "END" : "END2");
                }
                case 1, 2, 3, 4, 5, 6, 7 -> {
                    childSeconds++;
                    b.add("BEGIN " + chart() + " " + (r.nextInt(20) == 0 ? num() : 1_000_000 + r.nextInt(2001) - 1000));
                    for (String d : dims) {
                        if (r.nextInt(8) != 0) {
                            b.add("SET " + quoted(d) + " = " + (r.nextInt(20) == 0 ? num() : r.nextInt(1_000_000)));
                        }
                    }
                    b.add("END");
                }
                case 8, 9, 10 -> {
                    String c = chart();
                    b.add("RBEGIN " + c);
                    for (int p = r.nextInt(4); p > 0; p--) {
                        // now and then every time at an edge: intervals beyond an int, ends at 2^32 - 1
                        boolean edges = r.nextInt(10) == 0;
                        long end = edges || r.nextInt(30) == 0 ? edge() : childSeconds - r.nextInt(3600);
                        long start = edges || r.nextInt(30) == 0 ? edge() : end - 1;
                        long now = edges || r.nextInt(30) == 0 ? edge() : Math.max(end, childSeconds);
                        b.add("RBEGIN '' " + start + " " + end + " " + now);
                        for (String d : dims) {
                            b.add("RSET " + quoted(d) + " " + (r.nextInt(20) == 0 ? num() : r.nextDouble() * 1000) + " "
                                    + (r.nextInt(4) == 0 ? "\"E\"" : r.nextInt(8) == 0 ? "\"R\"" : "\"\""));
                        }
                    }
                    for (String d : dims) {
                        b.add("RDSTATE " + quoted(d) + " " + usec() + " " + r.nextInt(1000) + " " + r.nextDouble() + " "
                                + (r.nextInt(10) == 0 ? num() : "1.5"));
                    }
                    b.add("RSSTATE " + usec() + " " + usec());
                    b.add("REND " + (r.nextInt(10) == 0 ? num() : "1") + " " + sec() + " " + sec() + " "
                            + (r.nextInt(3) == 0 ? "false" : "true") + " " + sec() + " " + sec() + " " + sec());
                }
                case 11, 12 -> {
                    b.add("CHART " + chart() + " \"\" \"title\" \"units\" \"fam\" \"ctx\" "
                            + (r.nextInt(4) == 0 ? word() : "line") + " " + (r.nextInt(4) == 0 ? num() : "100") + " "
                            + (r.nextInt(6) == 0 ? num() : String.valueOf(1 + r.nextInt(3)))
                            + " \"\" \"fuzz.plugin\" \"\"");
                    for (int i = r.nextInt(3); i > 0; i--) {
                        b.add("CLABEL \"l" + r.nextInt(20) + "\" " + word() + " " + r.nextInt(3));
                    }
                    if (r.nextBoolean()) {
                        b.add("CLABEL_COMMIT");
                    }
                    for (int i = r.nextInt(3); i > 0; i--) {
                        String d = r.nextInt(4) == 0 ? "nd" + r.nextInt(6) : dims[r.nextInt(dims.length)];
                        b.add("DIMENSION " + quoted(d) + " " + quoted(d) + " "
                                + (r.nextBoolean() ? "absolute" : r.nextInt(4) == 0 ? word() : "incremental") + " "
                                + (r.nextInt(5) == 0 ? num() : "1") + " " + (r.nextInt(5) == 0 ? num() : "1") + " "
                                + (r.nextInt(4) == 0 ? word() : "\"\""));
                    }
                    if (r.nextInt(4) != 0) {
                        b.add("CHART_DEFINITION_END " + sec() + " " + sec() + " " + sec());
                    }
                }
                case 13 -> {
                    for (int i = r.nextInt(4); i > 0; i--) {
                        b.add("LABEL \"h" + r.nextInt(20) + "\" = " + r.nextInt(4) + " " + word());
                    }
                    b.add(r.nextBoolean() ? "OVERWRITE labels" : "VARIABLE " + (r.nextBoolean() ? "HOST " : "")
                            + "v" + r.nextInt(20) + " = " + num());
                }
                case 14 -> b.add("VARIABLE " + (r.nextBoolean() ? "CHART " : r.nextBoolean() ? "LOCAL " : "")
                        + "v" + r.nextInt(20) + " = " + num());
                case 15 -> b.add("FUNCTION " + (r.nextBoolean() ? "GLOBAL " : "") + "\"f" + r.nextInt(20) + "\" "
                        + num() + " \"help\"");
                case 16 -> {
                    b.add("FUNCTION_RESULT_BEGIN tx" + r.nextInt(9) + " " + (r.nextBoolean() ? "200" : num())
                            + " text/plain " + sec());
                    for (int i = r.nextInt(6); i > 0; i--) {
                        b.add(word() + " payload " + i);
                    }
                    if (r.nextInt(6) != 0) {
                        b.add("FUNCTION_RESULT_END");
                    }
                }
                case 17 -> b.add(r.nextInt(3) == 0 ? "FLUSH" : r.nextInt(60) == 0 ? "DISABLE"
                        : KEYWORDS[r.nextInt(KEYWORDS.length)]);
                default -> {
                    List<byte[]> chaos = new ArrayList<>();
                    chaos.add(chaosLine());
                    return chaos;
                }
            }
            List<byte[]> out = new ArrayList<>(b.size());
            for (String s : b) {
                byte[] line = s.getBytes(StandardCharsets.UTF_8);
                out.add(r.nextInt(40) == 0 ? nasty.mutate(line) : line);
            }
            return out;
        }

        /** Bytes of the alphabet, or a mutated captured line. */
        byte[] chaosLine() {
            if (r.nextBoolean()) {
                return nasty.mutate(Corpus.ALL_LINES[r.nextInt(Corpus.ALL_LINES.length)]);
            }
            byte[] b = new byte[r.nextInt(60)];
            for (int i = 0; i < b.length; i++) {
                b[i] = r.nextInt(4) == 0 ? (byte) r.nextInt(256) : ALPHABET[r.nextInt(ALPHABET.length)];
            }
            return b;
        }

        private String quoted(String id) {
            return switch (r.nextInt(3)) {
                case 0 -> id;
                case 1 -> "'" + id + "'";
                default -> "\"" + id + "\"";
            };
        }

        private String chart() {
            return quoted(r.nextInt(30) == 0 ? "fz.unknown" + r.nextInt(3) : charts[r.nextInt(charts.length)]);
        }

        private static String base64(long v) {
            String digits = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
            StringBuilder out = new StringBuilder();
            do {
                out.insert(0, digits.charAt((int) (v & 63)));
                v >>>= 6;
            } while (v != 0);
            return out.toString();
        }

        private long edge() {
            return EDGE_SECONDS[r.nextInt(EDGE_SECONDS.length)];
        }

        private String num() {
            return switch (r.nextInt(5)) {
                case 0, 1 -> NASTY_NUMBERS[r.nextInt(NASTY_NUMBERS.length)];
                case 2 -> String.valueOf(r.nextLong());
                case 3 -> String.valueOf(edge());
                default -> String.valueOf(r.nextDouble() * 1e6);
            };
        }

        private String sec() {
            return r.nextInt(10) == 0 ? num() : String.valueOf(childSeconds - r.nextInt(7200));
        }

        private String usec() {
            long s = r.nextInt(10) == 0 ? edge() : childSeconds - r.nextInt(10);
            return String.valueOf(s * 1_000_000L + r.nextInt(1_000_000));
        }

        private String word() {
            return new String(nasty.nastyWord(), StandardCharsets.ISO_8859_1);
        }
    }

    // ================================================================ part (a): the parser

    /** One engine at a time for part (a), with the clean baseline stream and the sentinel. */
    final class ParserBench implements AutoCloseable {
        private int generation;
        StorageEngine engine;
        Path engineDir;
        Baseline baseline;
        Sentinel sentinel;
        final ReceiverStats stats = new ReceiverStats();
        final long[] commands = {0};

        ParserBench() throws Exception {
            open();
        }

        private void open() throws Exception {
            engineDir = dir.resolve("engine-" + generation++);
            engine = StorageEngine.open(EngineConfig.defaults(engineDir));
            sentinel = new Sentinel(engine);
            ReceiverParser clean = parser(engine, PLAIN_GUID, CAPTURE_LIMITS, new ReceiverStats(),
                    stepClock(T0_SECONDS * 1_000_000L, 1000), new long[1], null);
            for (byte[] l : Corpus.PLAIN.lines()) {
                clean.line(l, 0, l.length);
            }
            baseline = new Baseline(engine, PLAIN_GUID, 12);
        }

        /** A new engine after {@link #close()}. */
        void rotate() throws Exception {
            close();
            open();
        }

        /** Closes the engine, reopens it to check the baseline from its files, and deletes it. */
        @Override
        public void close() throws Exception {
            engine.close();
            try (StorageEngine reopened = StorageEngine.open(EngineConfig.defaults(engineDir))) {
                baseline.check(reopened, "after close and reopen");
            }
            deleteTree(engineDir);
        }
    }

    static void deleteTree(Path p) throws IOException {
        try (Stream<Path> s = Files.walk(p)) {
            for (Path f : (Iterable<Path>) s.sorted(Comparator.reverseOrder())::iterator) {
                Files.deleteIfExists(f);
            }
        }
    }

    static UUID poolGuid(String what, int i) {
        return UUID.nameUUIDFromBytes(ascii("strata-fuzz-" + what + "-" + i));
    }

    static byte[] claimedId(UUID guid) {
        return ascii("CLAIMED_ID " + guid + " NULL");
    }

    @Test
    void mutatedCapturesIntoTheParser() throws Exception {
        int sessions = Math.max(30, ITERATIONS / 40);
        Fuzz.announce("receiver parser, mutated capture sessions", sessions, BASE_SEED);
        int[] rateShifts = {2, 5, 8, 11};
        long linesFed = 0;
        long refused = 0;
        long mutations = 0;
        byte[] scratch = new byte[64 * 1024];
        try (ParserBench bench = new ParserBench()) {
            for (int session = 0; session < sessions; session++) {
                if (session > 0 && session % SESSIONS_PER_ENGINE == 0) {
                    bench.rotate();
                }
                long seed = BASE_SEED + session;
                Random r = new Random(seed);
                Capture capture = Corpus.captures()[r.nextInt(3)];
                String context = "seed " + seed + " (" + capture.name() + ")";
                LineMutator mutator = new LineMutator(r, Corpus.ALL_LINES);
                RandomLines random = new RandomLines(r, new String[]{"system.cpu", "system.load", "disk_space._dev"},
                        new String[]{"user", "system", "load1", "avail", "used"});
                UUID guid = poolGuid("capture", r.nextInt(4));
                int rate = 1 << rateShifts[r.nextInt(rateShifts.length)];
                int lines = r.nextInt(4) == 0 ? capture.lines().length : 1 + r.nextInt(capture.lines().length);
                ReceiverParser p = parser(bench.engine, guid, CAPTURE_LIMITS, bench.stats,
                        stepClock(T0_SECONDS * 1_000_000L + r.nextInt(1_000_000), 1 + r.nextInt(5000)),
                        bench.commands, null);
                boolean alive = true;
                for (int i = 0; i < lines && alive; i++) {
                    byte[] line = startsWith(capture.lines()[i], "CLAIMED_ID ") ? claimedId(guid) : capture.lines()[i];
                    if (r.nextInt(rate) == 0) {
                        mutations++;
                        switch (r.nextInt(10)) {
                            case 0 -> {
                                continue; // dropped
                            }
                            case 1 -> alive = offer(p, line, scratch, r, context, i); // doubled
                            case 2 -> alive = offer(p, r.nextBoolean() ? random.chaosLine() : random.nextBlock().get(0),
                                    scratch, r, context, i);
                            case 3 -> alive = offer(p, Corpus.ALL_LINES[r.nextInt(Corpus.ALL_LINES.length)], scratch,
                                    r, context, i); // out of order
                            case 4 -> {
                                if (i + 1 < lines) {
                                    alive = offer(p, capture.lines()[++i], scratch, r, context, i); // swapped
                                }
                            }
                            default -> line = mutator.mutate(line);
                        }
                    }
                    if (alive) {
                        alive = offer(p, line, scratch, r, context, i);
                    }
                    linesFed++;
                    assertTrue(p.chartCount() <= CAPTURE_LIMITS.maxChartsPerHost(),
                            context + ": charts above the limit");
                    assertTrue(p.hostVariables().size() <= CAPTURE_LIMITS.maxLabelsPerHost(),
                            context + ": host variables above the limit");
                }
                if (!alive) {
                    refused++;
                    bench.sentinel.check(context);
                }
                if (session % 256 == 255) {
                    bench.baseline.check(bench.engine, context);
                }
            }
            bench.baseline.check(bench.engine, "end of the capture fuzz");
        }
        assertTrue(refused > sessions / 4, "mutations should break streams: " + refused + " of " + sessions);
        assertTrue(mutations > sessions, "mutations injected: " + mutations);
        assertTrue(linesFed > sessions * 20L, "lines fed: " + linesFed);
    }

    @Test
    void randomStreamsIntoTheParser() throws Exception {
        int budget = Math.max(2000, ITERATIONS * 5);
        Fuzz.announce("receiver parser, random stream lines", budget, BASE_SEED * 7);
        String[] charts = {"fz.gauge", "fz.rate", "fz.pct"};
        String[] dims = {"a", "b", "c", "d"};
        ReceiverLimits limits = new ReceiverLimits(LineSplitter.NETDATA_MAX_LINE_BYTES, 16, 8, 8, 4096);
        long lines = 0;
        long refused = 0;
        long stored;
        byte[] scratch = new byte[64 * 1024];
        try (ParserBench bench = new ParserBench()) {
            long storedBefore = bench.engine.pointsStored();
            for (int session = 0; lines < budget; session++) {
                if (session > 0 && session % SESSIONS_PER_ENGINE == 0) {
                    bench.rotate();
                }
                long seed = BASE_SEED * 7 + session;
                String context = "seed " + seed;
                Random r = new Random(seed);
                UUID guid = poolGuid("random", r.nextInt(4));
                ReceiverParser p = parser(bench.engine, guid, limits, bench.stats,
                        stepClock(T0_SECONDS * 1_000_000L, 250_000 + r.nextInt(1_000_000)), bench.commands, null);
                // a clean prologue, so that collections and replication points can happen
                List<byte[]> prologue = new ArrayList<>();
                prologue.add(claimedId(guid));
                for (String c : charts) {
                    prologue.add(ascii(chartLine(c)));
                    for (String d : dims) {
                        prologue.add(ascii("DIMENSION \"" + d + "\" \"" + d + "\" \""
                                + (c.equals("fz.rate") ? "incremental" : "absolute") + "\" 1 1 \"\""));
                    }
                    prologue.add(ascii("CHART_DEFINITION_END " + (T0_SECONDS - 3600) + " " + T0_SECONDS + " "
                            + T0_SECONDS));
                }
                for (byte[] l : prologue) {
                    assertTrue(offer(p, l, scratch, r, context + " prologue"), context + ": prologue refused");
                }
                RandomLines random = new RandomLines(r, charts, dims);
                int max = 1 + r.nextInt(r.nextInt(4) == 0 ? 100 : 3000);
                boolean alive = true;
                for (int i = 0; i < max && alive; ) {
                    for (byte[] line : random.nextBlock()) {
                        alive = offer(p, line, scratch, r, context, i);
                        i++;
                        lines++;
                        if (!alive) {
                            break;
                        }
                    }
                    assertTrue(p.chartCount() <= limits.maxChartsPerHost(), context + ": charts above the limit");
                    assertTrue(p.hostVariables().size() <= limits.maxLabelsPerHost(),
                            context + ": host variables above the limit");
                }
                if (!alive) {
                    refused++;
                    bench.sentinel.check(context);
                }
                if (session % 256 == 255) {
                    bench.baseline.check(bench.engine, context);
                }
            }
            bench.engine.flush();
            stored = bench.engine.pointsStored() - storedBefore;
            bench.baseline.check(bench.engine, "end of the random streams");
        }
        assertTrue(refused > 10, "random streams should break: " + refused);
        assertTrue(stored > 0, "random collections should store points");
    }

    /**
     * Streams the fuzzers above found to throw something other than a protocol error, kept as
     * plain cases: each line must be accepted or refused with {@link StreamProtocolException}, and
     * a function result must never be held larger than its limit.
     */
    @Test
    void edgesFoundByTheFuzzers() throws Exception {
        String define = chartLine("fz.edge") + "\nDIMENSION \"x\" \"x\" \"absolute\" 1 1 \"\"\n";
        String collect = "BEGIN \"fz.edge\" 1000000\nSET \"x\" = 5\nEND\n";
        Map<String, String> streams = new java.util.LinkedHashMap<>();
        streams.put("a replicated point longer than an int of seconds",
                define + "RBEGIN \"fz.edge\"\nRBEGIN '' 2 4294967295 4294967296\n");
        streams.put("live data after a replicated point that ends at 2^32 - 1",
                define + "RBEGIN \"fz.edge\"\nRBEGIN '' 4294967294 4294967295 4294967295\nRSET \"x\" 1 \"\"\n"
                        + "REND 1 1 4294967295 true 1 2 3\n" + collect + collect);
        streams.put("a function result that fills its limit exactly",
                "FUNCTION_RESULT_BEGIN tx 200 text/plain 0\n" + "a".repeat(10) + "\n" + "b".repeat(10) + "\n"
                        + "FUNCTION_RESULT_END\n");
        ReceiverLimits limits = new ReceiverLimits(LineSplitter.NETDATA_MAX_LINE_BYTES, 10, 10, 10, 20);
        List<String> wrong = new ArrayList<>();
        try (ParserBench bench = new ParserBench()) {
            int n = 0;
            for (Map.Entry<String, String> stream : streams.entrySet()) {
                UUID guid = poolGuid("edge", n++);
                List<String> results = new ArrayList<>();
                ReceiverParser p = parser(bench.engine, guid, limits, bench.stats,
                        stepClock(T0_SECONDS * 1_000_000L, 1000), bench.commands, results);
                for (String line : stream.getValue().split("\n")) {
                    byte[] b = line.getBytes(StandardCharsets.UTF_8);
                    try {
                        p.line(b, 0, b.length);
                    } catch (StreamProtocolException refused) {
                        break;
                    } catch (RuntimeException e) {
                        wrong.add(stream.getKey() + ": '" + line + "' threw " + e);
                        break;
                    }
                }
                for (String payload : results) {
                    if (payload.length() > limits.maxFunctionResultBytes()) {
                        wrong.add(stream.getKey() + ": a payload of " + payload.length() + " bytes was held, limit "
                                + limits.maxFunctionResultBytes());
                    }
                }
                bench.sentinel.check(stream.getKey());
            }
            bench.baseline.check(bench.engine, "after the edges");
        }
        assertEquals(List.of(), wrong);
    }

    /** Which limit a flood pushes against. */
    enum Flood {
        CHARTS, DIMENSIONS, CHART_LABELS, HOST_LABELS, HOST_VARIABLES, CHART_VARIABLES, FUNCTION_RESULT, MIXED
    }

    @Test
    void floodsStopAtTheLimits() throws Exception {
        int floods = Math.max(Flood.values().length * 10, ITERATIONS / 20);
        Fuzz.announce("receiver parser, floods", floods, BASE_SEED * 13);
        byte[] scratch = new byte[64 * 1024];
        int[] refusedByKind = new int[Flood.values().length];
        try (ParserBench bench = new ParserBench()) {
            for (int i = 0; i < floods; i++) {
                if (i > 0 && i % (SESSIONS_PER_ENGINE * 4) == 0) {
                    bench.rotate();
                }
                long seed = BASE_SEED * 13 + i;
                Random r = new Random(seed);
                Flood kind = Flood.values()[i % Flood.values().length];
                String context = "seed " + seed + " (" + kind + ")";
                ReceiverLimits limits = new ReceiverLimits(LineSplitter.NETDATA_MAX_LINE_BYTES, 1 + r.nextInt(6),
                        1 + r.nextInt(6), 1 + r.nextInt(6), 16 + r.nextInt(2048));
                UUID guid = UUID.nameUUIDFromBytes(ascii("strata-fuzz-flood-" + seed));
                List<String> results = new ArrayList<>();
                ReceiverParser p = parser(bench.engine, guid, limits, bench.stats,
                        stepClock(T0_SECONDS * 1_000_000L, 1000), bench.commands, results);
                FloodRun run = new FloodRun(p, scratch, r, context);
                boolean refused = switch (kind) {
                    case CHARTS -> floodCharts(run, limits.maxChartsPerHost());
                    case DIMENSIONS -> floodDimensions(run, limits.maxDimensionsPerChart());
                    case CHART_LABELS -> floodChartLabels(run, limits.maxLabelsPerHost());
                    case HOST_LABELS -> floodDistinct(run, limits.maxLabelsPerHost(), List.of(), false,
                            k -> "LABEL \"h" + k + "\" = 1 \"v" + k + "\"");
                    case HOST_VARIABLES -> floodDistinct(run, limits.maxLabelsPerHost(), List.of(), true,
                            k -> "VARIABLE HOST v" + k + " = " + k);
                    case CHART_VARIABLES -> floodDistinct(run, limits.maxLabelsPerHost(), List.of(chartLine("fl.c")),
                            true,
                            k -> "VARIABLE CHART v" + k + " = " + k);
                    case FUNCTION_RESULT -> floodFunctionResult(run, limits.maxFunctionResultBytes(), results);
                    case MIXED -> floodMixed(run);
                };
                if (refused) {
                    refusedByKind[kind.ordinal()]++;
                    bench.sentinel.check(context);
                }
                assertWithinLimits(bench.engine, p, guid, limits, context);
            }
            bench.baseline.check(bench.engine, "end of the floods");
        }
        for (Flood f : Flood.values()) {
            assertTrue(refusedByKind[f.ordinal()] > 0, "no " + f + " flood was refused");
        }
    }

    /** One flood's parser and the lines it accepted. */
    static final class FloodRun {
        final ReceiverParser p;
        final byte[] scratch;
        final Random r;
        final String context;

        FloodRun(ReceiverParser p, byte[] scratch, Random r, String context) {
            this.p = p;
            this.scratch = scratch;
            this.r = r;
            this.context = context;
        }

        boolean offer(String line) {
            return ReceiverFuzzTest.offer(p, line.getBytes(StandardCharsets.UTF_8), scratch, r, context);
        }

        void accept(String line) {
            assertTrue(offer(line), context + ": refused a line within the limits: " + line);
        }
    }

    static String chartLine(String id) {
        return "CHART \"" + id + "\" \"\" \"t\" \"u\" \"f\" \"" + id + "\" \"line\" 1 1 \"\" \"p\" \"m\"";
    }

    /** New chart ids up to the limit, each redefined now and then (never counted twice); one more is refused. */
    static boolean floodCharts(FloodRun run, int limit) {
        for (int k = 0; k < limit; k++) {
            run.accept(chartLine("fl.c" + k));
            run.accept("DIMENSION \"d\" \"d\" \"absolute\" 1 1 \"\"");
            if (run.r.nextBoolean()) {
                run.accept(chartLine("fl.c" + run.r.nextInt(k + 1)));
            }
        }
        // one more is refused alone: not stored, its lines skipped, the stream goes on
        run.accept(chartLine("fl.c" + limit));
        run.accept("DIMENSION \"d\" \"d\" \"absolute\" 1 1 \"\"");
        run.accept("BEGIN \"fl.c" + limit + "\" 1000000");
        run.accept("SET \"d\" = 1");
        run.accept("END");
        assertEquals(limit, run.p.chartCount(), run.context);
        return true;
    }

    /**
     * After the setup lines, distinct names up to the limit (with {@code repeats}, names already
     * given in between: they hold nothing new), then one more is refused.
     */
    static boolean floodDistinct(FloodRun run, int limit, List<String> setup, boolean repeats,
                                 java.util.function.IntFunction<String> line) {
        for (String s : setup) {
            run.accept(s);
        }
        for (int k = 0; k < limit; k++) {
            run.accept(line.apply(k));
            if (repeats && run.r.nextInt(3) == 0) {
                run.accept(line.apply(run.r.nextInt(k + 1)));
            }
        }
        assertFalse(run.offer(line.apply(limit)), run.context + ": name " + (limit + 1) + " accepted");
        return true;
    }

    /**
     * Dimensions of one chart up to the limit (names already given in between hold nothing new); one
     * more is refused alone: not stored, its values skipped, the stream goes on.
     */
    static boolean floodDimensions(FloodRun run, int limit) {
        run.accept(chartLine("fl.c"));
        for (int k = 0; k < limit; k++) {
            run.accept("DIMENSION \"d" + k + "\" \"d" + k + "\" \"absolute\" 1 1 \"\"");
            if (run.r.nextInt(3) == 0) {
                int again = run.r.nextInt(k + 1);
                run.accept("DIMENSION \"d" + again + "\" \"d" + again + "\" \"absolute\" 1 1 \"\"");
            }
        }
        run.accept("DIMENSION \"d" + limit + "\" \"d" + limit + "\" \"absolute\" 1 1 \"\"");
        run.accept("BEGIN \"fl.c\" 1000000");
        run.accept("SET \"d" + limit + "\" = 1");
        run.accept("END");
        return true;
    }

    /** Labels up to the limit, committed, again up to the limit, then one more is refused. */
    static boolean floodChartLabels(FloodRun run, int limit) {
        run.accept(chartLine("fl.c"));
        for (int round = 0; round < 2; round++) {
            for (int k = 0; k < limit; k++) {
                run.accept("CLABEL \"l" + round + "_" + k + "\" \"v\" 1");
            }
            if (round == 0) {
                run.accept("CLABEL_COMMIT");
            }
        }
        assertFalse(run.offer("CLABEL \"one_more\" \"v\" 1"), run.context + ": label " + (limit + 1) + " accepted");
        return true;
    }

    /** Payload lines until the payload would pass the limit: refused there, never delivered larger. */
    static boolean floodFunctionResult(FloodRun run, int limit, List<String> results) {
        run.accept("FUNCTION_RESULT_BEGIN tx1 200 text/plain 0");
        int delivered = 0;
        for (int i = 0; i < 100_000; i++) {
            char[] c = new char[1 + run.r.nextInt(Math.min(400, limit))];
            Arrays.fill(c, 'p');
            if (!run.offer(new String(c))) {
                return true;
            }
            delivered += c.length + (i > 0 ? 1 : 0);
            if (delivered <= limit && run.r.nextInt(8) == 0) {
                run.accept("FUNCTION_RESULT_END");
                assertEquals(1, results.size(), run.context);
                assertEquals(delivered, results.get(0).length(), run.context);
                return false;
            }
            assertTrue(delivered <= limit, run.context + ": " + delivered + " payload bytes held, limit " + limit);
        }
        throw new AssertionError(run.context + ": the payload was never refused");
    }

    /** Random definitions with mutations: whatever is accepted must stay within the limits. */
    static boolean floodMixed(FloodRun run) {
        Random r = run.r;
        RandomLines random = new RandomLines(r, new String[]{"fl.a", "fl.b"}, new String[]{"x", "y"});
        for (int i = 0; i < 400; i++) {
            String line = switch (r.nextInt(7)) {
                case 0 -> chartLine("fl.c" + r.nextInt(12));
                case 1 -> "DIMENSION \"d" + r.nextInt(12) + "\" \"n\" \"absolute\" 1 1 \"\"";
                case 2 -> "CLABEL \"l" + r.nextInt(12) + "\" \"v\" 1";
                case 3 -> "CLABEL_COMMIT";
                case 4 -> "LABEL \"h" + r.nextInt(12) + "\" = 1 \"v\"";
                case 5 -> r.nextBoolean() ? "OVERWRITE labels" : "VARIABLE v" + r.nextInt(12) + " = 1";
                default -> new String(random.chaosLine(), StandardCharsets.ISO_8859_1);
            };
            if (!run.offer(line)) {
                return true;
            }
        }
        return false;
    }

    /** What the parent holds for a host streamed on one connection stays within that connection's limits. */
    static void assertWithinLimits(StorageEngine engine, ReceiverParser p, UUID guid, ReceiverLimits limits,
                                   String context) {
        MetadataStore meta = engine.metadata();
        int host = meta.hostId(guid);
        assertTrue(host >= 0, context + ": host not registered");
        assertTrue(meta.host(host).labels().size() <= limits.maxLabelsPerHost(),
                context + ": host labels " + meta.host(host).labels().size());
        assertTrue(p.hostVariables().size() <= limits.maxLabelsPerHost(), context + ": host variables");
        List<Integer> charts = meta.charts(host);
        assertTrue(charts.size() <= limits.maxChartsPerHost(), context + ": " + charts.size() + " charts");
        assertEquals(p.chartCount(), charts.size(), context + ": charts known to the parser and the engine");
        for (int c : charts) {
            ChartInfo info = meta.chart(c);
            assertTrue(meta.metrics(c).size() <= limits.maxDimensionsPerChart(),
                    context + ": " + meta.metrics(c).size() + " dimensions in " + info.id());
            assertTrue(info.labels().size() <= limits.maxLabelsPerHost(),
                    context + ": " + info.labels().size() + " labels on " + info.id());
        }
    }

    // ================================================================ part (b): a real server

    /** Bytes with every occurrence of one GUID's text replaced by another's (same length). */
    static byte[] withGuid(byte[] bytes, UUID from, UUID to) {
        byte[] f = ascii(from.toString());
        byte[] t = ascii(to.toString());
        byte[] out = bytes.clone();
        for (int i = 0; i + f.length <= out.length; i++) {
            if (out[i] == f[0] && Arrays.equals(out, i, i + f.length, f, 0, f.length)) {
                System.arraycopy(t, 0, out, i, t.length);
                i += f.length - 1;
            }
        }
        return out;
    }

    /** Byte edits of a binary stream: flips, overwrites, deletions, duplications, insertions. */
    static byte[] mutateBytes(byte[] data, Random r, int edits) {
        byte[] out = data.clone();
        for (int e = 0; e < edits && out.length > 0; e++) {
            int at = r.nextInt(out.length);
            switch (r.nextInt(5)) {
                case 0 -> out[at] ^= (byte) (1 << r.nextInt(8));
                case 1 -> out[at] = (byte) r.nextInt(256);
                case 2 -> out = splice(out, at, Math.min(out.length, at + 1 + r.nextInt(16)), new byte[0]);
                case 3 -> out = splice(out, at, at,
                        Arrays.copyOfRange(out, at, Math.min(out.length, at + 1 + r.nextInt(16))));
                default -> out = splice(out, at, -1, new byte[]{(byte) r.nextInt(256)});
            }
        }
        return out;
    }

    /** Text lines with mutations at one line in {@code rate}, joined with '\n'. */
    static byte[] mutatedText(byte[][] lines, int count, Random r, int rate) {
        LineMutator m = new LineMutator(r, Corpus.ALL_LINES);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (int i = 0; i < count && i < lines.length; i++) {
            byte[] l = lines[i];
            if (r.nextInt(rate) == 0) {
                l = m.mutate(l);
            }
            out.writeBytes(l);
            out.write('\n');
        }
        return out.toByteArray();
    }

    /** LZ4 frames exactly as our child sends them (independent blocks, cut anywhere). */
    static byte[] lz4Frames(byte[] text) {
        EmbeddedChannel ch = new EmbeddedChannel(new Lz4StreamFrameEncoder(true));
        try {
            assertTrue(ch.writeOutbound(Unpooled.wrappedBuffer(text)));
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            for (ByteBuf b; (b = ch.readOutbound()) != null; ) {
                byte[] bytes = new byte[b.readableBytes()];
                b.readBytes(bytes);
                b.release();
                out.writeBytes(bytes);
            }
            return out.toByteArray();
        } finally {
            ch.finishAndReleaseAll();
        }
    }

    /** What one fuzz connection sends: the request head (may be garbage) and what follows. */
    record Attack(String kind, byte[] head, byte[] body, boolean waitForReply) {
    }

    static Attack attack(Random r, long seed) {
        UUID guid = UUID.nameUUIDFromBytes(ascii("strata-fuzz-conn-" + seed));
        byte[] plainHead = Arrays.copyOf(Corpus.PLAIN_SESSION, ReceiverVectorsTest.headEnd(Corpus.PLAIN_SESSION));
        byte[] lz4Head = Arrays.copyOf(Corpus.LZ4_SESSION, ReceiverVectorsTest.headEnd(Corpus.LZ4_SESSION));
        switch (r.nextInt(6)) {
            case 0 -> {
                byte[] g = new byte[1 + r.nextInt(20_000)];
                r.nextBytes(g);
                return new Attack("garbage", g, new byte[0], false);
            }
            case 1 -> {
                byte[] head = mutateBytes(withGuid(plainHead, PLAIN_GUID, guid), r, 1 + r.nextInt(12));
                if (r.nextBoolean()) {
                    head = concat(ascii("STREAM "), Arrays.copyOfRange(head, Math.min(head.length, 7), head.length));
                }
                byte[] tail = new byte[r.nextInt(4000)];
                r.nextBytes(tail);
                return new Attack("broken request", head, tail, false);
            }
            case 2 -> {
                Capture c = r.nextBoolean() ? Corpus.PLAIN : Corpus.REPLICATION;
                byte[][] lines = c.lines().clone();
                for (int i = 0; i < lines.length; i++) {
                    if (startsWith(lines[i], "CLAIMED_ID ")) {
                        lines[i] = claimedId(guid);
                    }
                }
                byte[] body = mutatedText(lines, 1 + r.nextInt(4000), r, 1 << (2 + r.nextInt(8)));
                if (r.nextInt(3) == 0) {
                    body = mutateBytes(body, r, 1 + r.nextInt(20));
                }
                return new Attack("mutated plain capture", withGuid(plainHead, PLAIN_GUID, guid), body, true);
            }
            case 3 -> {
                byte[] text = withGuid(Corpus.LZ4_TEXT_BYTES, LZ4_GUID, guid);
                byte[] body = mutatedText(lines(text, 0), 1 + r.nextInt(4000), r, 1 << (4 + r.nextInt(8)));
                byte[] frames = mutateBytes(lz4Frames(body), r, r.nextInt(6));
                return new Attack("mutated LZ4 frames", withGuid(lz4Head, LZ4_GUID, guid), frames, true);
            }
            case 4 -> {
                // the real child's dependent blocks, mutated; the request keeps its GUID (CLAIMED_ID is inside)
                byte[] blocks = Arrays.copyOfRange(Corpus.LZ4_SESSION, lz4Head.length,
                        lz4Head.length + r.nextInt(Corpus.LZ4_SESSION.length - lz4Head.length));
                return new Attack("mutated real LZ4 blocks", lz4Head, mutateBytes(blocks, r, 1 + r.nextInt(6)), true);
            }
            default -> {
                // text where the negotiated compression wants frames
                byte[] body = mutatedText(Corpus.LZ4_TEXT.lines(), 1 + r.nextInt(200), r, 64);
                return new Attack("uncompressed data in a compressed stream", withGuid(lz4Head, LZ4_GUID, guid),
                        withGuid(body, LZ4_GUID, guid), true);
            }
        }
    }

    /** Sends one attack in uneven pieces; the server may close at any time. */
    static void send(int port, Attack a, Random r) {
        try (Socket s = new Socket("127.0.0.1", port)) {
            s.setSoTimeout(5000);
            OutputStream out = s.getOutputStream();
            InputStream in = s.getInputStream();
            writeInPieces(out, a.head(), r);
            if (a.waitForReply()) {
                // a child waits for the reply before it streams
                byte[] reply = new byte[4096];
                if (in.read(reply) < 0) {
                    return;
                }
            }
            writeInPieces(out, a.body(), r);
            s.shutdownOutput();
            byte[] drain = new byte[8192];
            while (in.read(drain) >= 0) {
                // until the server closes: it has then read everything
            }
        } catch (IOException expected) {
            // refused, reset or timed out: the server is free to drop a bad client any way it likes
        }
    }

    static void writeInPieces(OutputStream out, byte[] data, Random r) throws IOException {
        for (int at = 0; at < data.length; ) {
            int n = Math.min(data.length - at, 1 + r.nextInt(r.nextInt(4) == 0 ? 64 : 20_000));
            out.write(data, at, n);
            at += n;
        }
        out.flush();
    }

    /** Total tier-0 points of a host's metrics. */
    static long pointsOfHost(StorageEngine engine, UUID guid) throws IOException {
        MetadataStore meta = engine.metadata();
        int host = meta.hostId(guid);
        if (host < 0) {
            return 0;
        }
        long n = 0;
        for (int c : meta.charts(host)) {
            for (int m : meta.metrics(c)) {
                n += engine.queryTier0(m, 1, 0xFFFF_FFFFL, (t, sn) -> { });
            }
        }
        return n;
    }

    static Set<String> chartIds(StorageEngine engine, UUID guid) {
        MetadataStore meta = engine.metadata();
        int host = meta.hostId(guid);
        Set<String> ids = new HashSet<>();
        if (host >= 0) {
            for (int c : meta.charts(host)) {
                ids.add(meta.chart(c).id());
            }
        }
        return ids;
    }

    @Test
    void serverKeepsTheGoodStreamWhileOthersSendGarbage() throws Exception {
        // the clock stands still: the good stream's points then depend only on its bytes, so a clean
        // in-process parse of the same bytes must give the very same points
        LongSupplier clock = () -> T0_SECONDS * 1_000_000L;
        byte[] session = Corpus.PLAIN_SESSION;
        int head = ReceiverVectorsTest.headEnd(session);

        long referencePoints;
        long referenceSamples;
        Set<String> referenceCharts;
        Map<String, long[]> referenceSeries = new java.util.HashMap<>();
        try (StorageEngine reference = StorageEngine.open(EngineConfig.defaults(dir.resolve("reference")))) {
            ReceiverStats refStats = new ReceiverStats();
            ReceiverParser p = parser(reference, PLAIN_GUID, ReceiverLimits.DEFAULTS, refStats, clock, new long[1],
                    null);
            new LineSplitter(ReceiverLimits.DEFAULTS.maxLineBytes()).feed(
                    Unpooled.wrappedBuffer(session, head, session.length - head), p);
            p.publishStats();
            referencePoints = pointsOfHost(reference, PLAIN_GUID);
            referenceSamples = refStats.samplesCollected.sum() + refStats.samplesReplayed.sum();
            referenceCharts = chartIds(reference, PLAIN_GUID);
            MetadataStore meta = reference.metadata();
            for (int c : meta.charts(meta.hostId(PLAIN_GUID))) {
                for (int m : meta.metrics(c)) {
                    DimensionInfo d = meta.dimension(m);
                    referenceSeries.put(d.chartId() + "/" + d.id(), read(reference, m));
                }
            }
        }
        assertTrue(referenceCharts.size() > 200 && referenceSamples > 10_000 && referencePoints > 10_000,
                "the capture is a real stream: " + referenceCharts.size() + " charts, " + referenceSamples
                        + " samples, " + referencePoints + " points");

        // every attack logs a line or two: keep warnings and errors only, and collect the errors
        Logger root = (Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
        Logger streaming = (Logger) LoggerFactory.getLogger("io.strata.streaming");
        Level streamingLevel = streaming.getLevel();
        streaming.setLevel(Level.WARN);
        ListAppender<ILoggingEvent> logged = new ListAppender<>();
        logged.start();
        root.addAppender(logged);
        StorageEngine engine = StorageEngine.open(EngineConfig.defaults(dir.resolve("server")));
        StreamConfig conf = StreamConfig.from(IniFile.parse("[" + KEY + "]\n\tenabled = yes\n", "stream.conf"));
        ReceiverStats stats = new ReceiverStats();
        ReceiverRegistry registry = new ReceiverRegistry();
        ReceiverContext rc = new ReceiverContext(engine,
                new StreamAuthorizer(conf, true, ReceiverVectorsTest.CAPS_1_37_1, UUID.randomUUID().toString(), 0),
                registry, ReceiverLimits.DEFAULTS, stats, clock, 600, null);
        StreamServer server = new StreamServer(rc, null, null, 2);
        ExecutorService attackers = Executors.newFixedThreadPool(3);
        List<String> kinds = java.util.Collections.synchronizedList(new ArrayList<>());
        try {
            int port = server.bind(new InetSocketAddress("127.0.0.1", 0)).getPort();
            int rounds = Math.max(4, ITERATIONS / 2500);
            Fuzz.announce("stream server, attacks over sockets (3 threads)", 3L * rounds, BASE_SEED * 17);
            List<Future<?>> running = new ArrayList<>();
            for (int t = 0; t < 3; t++) {
                long threadSeed = BASE_SEED * 17 + t * 1_000_003L;
                running.add(attackers.submit(() -> {
                    for (int i = 0; i < rounds; i++) {
                        long seed = threadSeed + i;
                        Random r = new Random(seed);
                        Attack a = attack(r, seed);
                        kinds.add(a.kind());
                        send(port, a, r);
                    }
                    return null;
                }));
            }

            try (Socket good = new Socket("127.0.0.1", port)) {
                good.setSoTimeout(10_000);
                OutputStream out = good.getOutputStream();
                out.write(session, 0, head);
                out.flush();
                byte[] buf = new byte[4096];
                int n = good.getInputStream().read(buf);
                assertTrue(n > 0 && new String(buf, 0, n, StandardCharsets.US_ASCII)
                        .startsWith("Hit me baby, push them over with the version="), "the good child was refused");
                writeInPieces(out, Arrays.copyOfRange(session, head, session.length), new Random(BASE_SEED));
                for (Future<?> f : running) {
                    f.get(120, TimeUnit.SECONDS);
                }
                long deadline = System.nanoTime() + 120_000_000_000L;
                long points = -1;
                while (System.nanoTime() < deadline) {
                    points = pointsOfHost(engine, PLAIN_GUID);
                    if (points >= referencePoints) {
                        break;
                    }
                    Thread.sleep(100);
                }
                assertTrue(registry.isConnected(PLAIN_GUID.toString()), "the good stream was closed");
                assertEquals(referencePoints, points, "points of the good stream");
            }

            assertEquals(referenceCharts, chartIds(engine, PLAIN_GUID), "charts of the good stream");
            for (Map.Entry<String, long[]> e : referenceSeries.entrySet()) {
                String[] cd = e.getKey().split("/", 2);
                int metric = engine.registry().lookup(DimensionInfo.metricUuid(PLAIN_GUID, cd[0], cd[1]));
                assertTrue(metric >= 0, "metric " + e.getKey() + " of the good stream missing");
                assertArrayEquals(e.getValue(), read(engine, metric), "points of " + e.getKey());
            }

            // the server still takes a new stream, whose data arrives
            UUID late = UUID.nameUUIDFromBytes(ascii("strata-fuzz-late-child"));
            try (Socket s = new Socket("127.0.0.1", port)) {
                s.setSoTimeout(10_000);
                OutputStream out = s.getOutputStream();
                out.write(withGuid(Arrays.copyOf(session, head), PLAIN_GUID, late));
                out.flush();
                byte[] buf = new byte[4096];
                int n = s.getInputStream().read(buf);
                assertTrue(n > 0 && new String(buf, 0, n, StandardCharsets.US_ASCII).startsWith("Hit me baby"),
                        "a new child after the attacks was refused");
                out.write(ascii("CLAIMED_ID " + late + " NULL\n" + chartLine("late.chart") + "\n"
                        + "DIMENSION \"v\" \"v\" \"absolute\" 1 1 \"\"\nBEGIN \"late.chart\" 0\nSET \"v\" = 1\nEND\n"));
                out.flush();
                long deadline = System.nanoTime() + 60_000_000_000L;
                while (!chartIds(engine, late).contains("late.chart") && System.nanoTime() < deadline) {
                    Thread.sleep(20);
                }
                assertEquals(Set.of("late.chart"), chartIds(engine, late), "the late child's chart");
            }

            Set<String> seenKinds = new HashSet<>(kinds);
            assertTrue(seenKinds.size() >= 4, "attack kinds: " + seenKinds);
            assertTrue(stats.protocolErrors.sum() > 0, "no attack reached the parser");
            assertTrue(stats.connectionsAccepted.sum() >= 3, "accepted: " + stats.connectionsAccepted.sum());
            List<String> errors = new ArrayList<>();
            List<ILoggingEvent> events;
            synchronized (logged) {
                events = List.copyOf(logged.list);
            }
            for (ILoggingEvent e : events) {
                if (e.getLevel().isGreaterOrEqual(Level.ERROR)) {
                    errors.add(e.getLoggerName() + ": " + e.getFormattedMessage()
                            + (e.getThrowableProxy() == null ? "" : " " + e.getThrowableProxy().getClassName() + ": "
                            + e.getThrowableProxy().getMessage()));
                }
            }
            assertEquals(List.of(), errors, "errors logged while under attack");
        } finally {
            attackers.shutdownNow();
            attackers.awaitTermination(10, TimeUnit.SECONDS);
            server.close();
            engine.close();
            root.detachAppender(logged);
            streaming.setLevel(streamingLevel);
        }
    }
}
