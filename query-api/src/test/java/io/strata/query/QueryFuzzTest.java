package io.strata.query;

import com.fasterxml.jackson.core.JsonParser;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufInputStream;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.strata.query.data.QueryBudget;
import io.strata.testsupport.Fuzz;
import io.strata.testsupport.GuardPerClass;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.strata.query.http.ApiError;
import io.strata.query.http.ApiResponse;
import io.strata.query.http.ApiRouter;
import io.strata.query.http.ApiServices;
import io.strata.query.http.ContentTypes;

import java.io.IOException;
import java.io.InputStream;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Locale;
import java.util.Random;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Seeded fuzzing of the query strings of /api/v1 (data above all): random parameters, values
 * from plausible to hostile. Every answer must be a clean one — 200, or Netdata's 400/404 with
 * its text — never a 500 or an exception escaping; JSON answers must parse. Most inputs go
 * straight through the router (fast); a share goes through the real server.
 */
@GuardPerClass("the HTTP client keeps its connection to the server from one test to the next")
class QueryFuzzTest {

    static final long SEED = 0x5EED_0F_A9L;
    /** 504: a random {@code timeout=} (milliseconds) shorter than the query. */
    static final Set<Integer> CLEAN = Set.of(200, 400, 404, 504);

    @TempDir
    static Path dir;
    static RecordedParent parent;
    static TestServer server;

    @BeforeAll
    static void start() throws Exception {
        parent = new RecordedParent(dir);
        server = new TestServer(parent.api);
        parent.clock.set(RecordedParent.LAST + 1);
    }

    @AfterAll
    static void stop() throws IOException {
        server.close();
        parent.close();
    }

    private static final String[] NAMES = {"chart", "context", "dimension", "dimensions", "dims", "after", "before",
        "points", "group", "gtime", "format", "options", "tier", "callback", "filename", "tqx", "group_options",
        "timeout", "label", "_", "show_dimensions", "", "=", "chart%00"};
    private static final String[] CHARTS = {"system.cpu", "system.load", "disk.vda", "net.eth0", "no.such", "",
        "system.cpu|system.load", "*", "null", "undefined", "system.cpu%20", "%"};
    private static final String[] CONTEXTS = {"system.cpu", "disk.io", "system.*", "*cpu*", "!system.cpu,disk.*",
        "nothing"};
    private static final String[] GROUPS = {"average", "min", "max", "sum", "incremental-sum", "incremental_sum",
        "median", "stddev", "cv", "ses", "des", "countif", "percentile", "percentile95", "trimmed-mean5",
        "trimmed-median", "mean", "bogus", ""};
    private static final String[] FORMATS = {"json", "jsonp", "csv", "tsv", "tsv-excel", "ssv", "ssvcomma",
        "datatable", "datasource", "html", "markdown", "array", "csvjsonarray", "json2", "bogus"};
    private static final String[] OPTIONS = {"jsonwrap", "flip", "ms", "seconds", "abs", "absolute", "percentage",
        "nonzero", "null2zero", "unaligned", "min2max", "objectrows", "google_json", "match-ids", "match-names",
        "selected-tier", "natural-points", "virtual-points", "raw", "all-dimensions", "bogus"};
    private static final String[] PATHS = {"/api/v1/data", "/api/v1/data", "/api/v1/data", "/api/v1/data",
        "/api/v1/chart", "/api/v1/charts", "/api/v1/info", "/api/v1/allmetrics", "/api/v1/alarms",
        "/api/v1/registry", "/host/ndq-child/api/v1/data", "/host/" + RecordedParent.CHILD + "/api/v1/data",
        "/host/%zz/api/v1/data", "/api/v1/", "/api/v3/data", "/api/v1/data/extra", "/host/", "/host//api/v1/info",
        "/api/v1/badge.svg", "/host/ndq-child/api/v1/badge.svg"};

    private static String number(Random r) {
        return switch (r.nextInt(10)) {
            case 0 -> Long.toString(r.nextLong());
            case 1 -> Long.toString(RecordedParent.LAST - r.nextInt(4000));
            case 2 -> Long.toString(-r.nextInt(4000));
            case 3 -> Integer.toString(r.nextInt(100));
            case 4 -> "9223372036854775808";
            case 5 -> "-9223372036854775809";
            case 6 -> " 12abc";
            case 7 -> "0x1F";
            case 8 -> "1e5";
            default -> Integer.toString(r.nextInt(2000) - 1000);
        };
    }

    private static String garbage(Random r) {
        String alphabet = "abc.|,*!%&=?#;:<>\"'\\ \t+-_/0123456789\u00e9\u4e2d";
        int n = r.nextInt(12);
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < n; i++) {
            sb.append(alphabet.charAt(r.nextInt(alphabet.length())));
        }
        return sb.toString();
    }

    private static String value(Random r, String name) {
        if (r.nextInt(8) == 0) {
            return garbage(r);
        }
        return switch (name) {
            case "chart" -> CHARTS[r.nextInt(CHARTS.length)];
            case "context" -> CONTEXTS[r.nextInt(CONTEXTS.length)];
            case "dimension", "dimensions", "dims" -> new String[] {"user", "user|system", "*", "!user,*", "in|out",
                "nonexistent", "reads", "idle", "u*r"}[r.nextInt(9)];
            case "after", "before", "gtime", "timeout", "tier" -> number(r);
            case "points" -> r.nextInt(4) == 0 ? number(r) : Integer.toString(r.nextInt(700));
            case "group" -> GROUPS[r.nextInt(GROUPS.length)];
            case "format" -> FORMATS[r.nextInt(FORMATS.length)];
            case "options" -> {
                StringBuilder sb = new StringBuilder();
                int n = 1 + r.nextInt(4);
                for (int i = 0; i < n; i++) {
                    sb.append(i == 0 ? "" : new String[] {"|", ",", " ", "%7C"}[r.nextInt(4)])
                            .append(OPTIONS[r.nextInt(OPTIONS.length)]);
                }
                yield sb.toString();
            }
            case "tqx" -> "reqId:" + r.nextInt(9) + ";out:" + new String[] {"json", "csv", "html", "x"}[r.nextInt(4)]
                    + ";sig:" + number(r) + ";responseHandler:" + garbage(r);
            case "group_options" -> new String[] {">0.5", "<=3", "!=0", "<>1", "=", "25", "-3", "abc"}[r.nextInt(8)];
            default -> garbage(r);
        };
    }

    /** A random query string, raw (values partly percent-encoded, partly not). */
    static String query(Random r) {
        StringBuilder sb = new StringBuilder();
        int n = r.nextInt(9);
        for (int i = 0; i < n; i++) {
            String name = NAMES[r.nextInt(NAMES.length)];
            if (i == 0 && r.nextInt(4) != 0) {
                name = r.nextBoolean() ? "chart" : "context";
            }
            String v = value(r, name);
            if (r.nextBoolean()) {
                v = java.net.URLEncoder.encode(v, StandardCharsets.UTF_8);
            }
            sb.append(i == 0 ? "" : "&").append(name).append(r.nextInt(10) == 0 ? "" : "=").append(v);
        }
        return sb.toString();
    }

    @Test
    void randomQueriesGetCleanAnswers() throws Exception {
        ApiServices services = ApiServices.of(parent.api);
        long byHttp = Math.min(Fuzz.inputs() / 50, 400);
        long[] statuses200 = {0};
        Fuzz.Result run = Fuzz.run("/api/v1 query strings", SEED, in -> {
            Random r = in.random();
            String path = PATHS[r.nextInt(PATHS.length)];
            String q = query(r);
            if (path.endsWith("allmetrics") && r.nextInt(20) != 0) {
                // a whole dump is slow and teaches nothing new each time: mostly one chart, any format
                q += "&filter=" + CHARTS[r.nextInt(CHARTS.length)] + "&format="
                        + new String[] {"shell", "json", "prometheus", "prometheus_all_hosts", "x"}[r.nextInt(5)];
            }
            parent.clock.set(RecordedParent.LAST + 1 - r.nextInt(3));
            String where = path + "?" + q;
            in.show(where);
            if (in.index() < byHttp) {
                HttpResponse<String> resp;
                try {
                    resp = server.get(TestServer.encodeIllegal(path + "?" + q));
                } catch (IllegalArgumentException notAUri) {
                    // java.net.URI refuses some raw bytes a socket would carry; the router part covers them
                    return;
                }
                assertTrue(CLEAN.contains(resp.statusCode()), where + " -> " + resp.statusCode() + " " + resp.body());
                if (resp.statusCode() == 200) {
                    statuses200[0]++;
                    checkJson(resp.headers().firstValue("content-type").orElse(""), resp.body(), q, where);
                }
                return;
            }
            if (routeAndCheck(services, path, q, where, Long.MAX_VALUE)) {
                statuses200[0]++;
            }
        });
        assertTrue(statuses200[0] > run.inputs() / 10, "the fuzzer should reach real answers, got " + statuses200[0]);
    }

    /**
     * Found by {@link #mutatedQueriesStayCleanAndWithinTheBudget}: a huge {@code gtime} put a row at
     * time 0, which {@code ms} wrote as {@code 0000}, not a JSON number.
     */
    @Test
    void aRowAtTimeZeroInMillisecondsIsAJsonNumber() throws Exception {
        ApiServices services = ApiServices.of(parent.api);
        String q = "options=seconds%7Cms|natur9223372036854775807al-points&chart=undefined&before=1e5&chart%00=8?_''"
                + "\u4e2d&=|\u00e9?c8#6->\"&gtime=4032934401700824701&chart=system.cpu";
        for (int back = 0; back < 3; back++) {
            parent.clock.set(RecordedParent.LAST + 1 - back);
            assertTrue(routeAndCheck(services, "/api/v1/data", q, q, Long.MAX_VALUE), q);
            assertTrue(routeAndCheck(services, "/api/v1/data", q + "&format=csv", q, Long.MAX_VALUE), q);
        }
    }

    /**
     * Found by {@link #mutatedQueriesStayCleanAndWithinTheBudget} (200 000 inputs): a huge {@code gtime}
     * with a negative {@code points} put rows at times no calendar holds, and the date formats
     * (datatable, csv without {@code seconds}) threw a DateTimeException, a 500.
     */
    @Test
    void rowsAtTimesNoCalendarHoldsAreStillAnswered() throws Exception {
        ApiServices services = ApiServices.of(parent.api);
        String q = "context=system.*&label=!7&dims=user&tqx=reqId%3A6%3Bout%3Ajson%3Bsig%3A-438%3BresponseHandler%3A%5C"
                + "+36%3E%3A%7C-c%22%3A&points=-41497179463\u254a4985658&=0#8' :=&gtime=3996276090720420935&after=&group=%";
        for (int back = 0; back < 3; back++) {
            parent.clock.set(RecordedParent.LAST + 1 - back);
            for (String format : new String[] {"", "&format=datatable", "&format=csv", "&format=json&options=google_json"}) {
                routeAndCheck(services, "/api/v1/data", q + format, q + format, Long.MAX_VALUE);
            }
        }
    }

    /**
     * The costliest input a fuzz run met (seed 1592597473, answered 504 by the server's 10 s deadline on
     * a loaded machine): legal, and large by Netdata's window arithmetic, not by a defect. {@code after}
     * past the largest number is an absolute time in the future, {@code before=} unreadable is 0 (the
     * database's end): swapped, shifted back to now and clamped to 10 years; {@code virtual-points}
     * makes the granularity 1 s, and without {@code points=} every second is wanted, capped at 86 400
     * rows of 3 650 s. Over the 35 dimensions of the {@code disk.*} contexts that is 3.0 M values
     * (16.5 MB of JSON), within the bound of one answer ({@code DataQuery.MAX_CELLS}).
     */
    @Test
    void theLargestLegalAnswerOfAVirtualPointsWindow() throws Exception {
        ApiServices services = ApiServices.of(parent.api);
        parent.clock.set(RecordedParent.LAST + 1);
        String q = "before=..a%2B%C3%A9&show_dimensions=922%2F%3B5&group=trimmed-median&after=9223372036854775808"
                + "&context=%21system.cpu%2Cdisk.*&options=percentage%7Cvirtual-points%7Cvirtual-points%7Cjsonwrap";
        ApiResponse resp = ApiRouter.route(parent.api, services, "/host/ndq-child/api/v1/data", q,
                PooledByteBufAllocator.DEFAULT, "fuzz", null);
        try {
            assertTrue(resp.status().code() == 200, resp.status().toString());
            String body = resp.body().toString(StandardCharsets.UTF_8);
            assertTrue(body.contains("\"view_update_every\": 3650"), body.substring(0, 600));
            Matcher points = Pattern.compile("\"points\":\\s*(\\d+)").matcher(body);
            assertTrue(points.find(), body.substring(0, 600));
            long rows = Long.parseLong(points.group(1));
            Matcher dims = Pattern.compile("\"dimensions\":\\s*(\\d+)").matcher(body);
            assertTrue(dims.find(), body.substring(0, 600));
            long columns = Long.parseLong(dims.group(1));
            assertTrue(rows == 86_400 && columns == 35, rows + " rows x " + columns + " dimensions");
            assertTrue(rows * columns <= 1L << 23, "DataQuery.MAX_CELLS, the bound of one answer");
        } finally {
            resp.body().release();
        }
    }

    private static final Pattern POINTS_PER_TIER = Pattern.compile("\"db_points_per_tier\":\\s*\\[([0-9, ]*)\\]");
    private static final byte[] POINTS_PER_TIER_NAME = "\"db_points_per_tier\"".getBytes(StandardCharsets.US_ASCII);

    /**
     * The points an answer says it read ({@code db_points_per_tier} summed), 0 when it does not say: the
     * first match of {@link #POINTS_PER_TIER} in the answer's text, found by pattern because google_json
     * wraps the same field in JavaScript that is not JSON. A match starts at the field's quoted name and
     * ends at the first {@code ]} after it, so only those bytes are decoded and matched, not the whole
     * answer (a copy of every answer as a String and a search of it were most of what this check cost).
     * The bytes are searched in the answer's array, skipping as Horspool's search does (as the pattern's own
     * search did over the String): a search through the buffer's methods passed each byte through the leak
     * detector's tracking wrapper that the tests' buffers have.
     */
    static long pointsRead(ByteBuf body) {
        byte[] b;
        int from;
        int end;
        if (body.hasArray()) {
            b = body.array();
            from = body.arrayOffset() + body.readerIndex();
            end = from + body.readableBytes();
        } else {
            b = ByteBufUtil.getBytes(body);
            from = 0;
            end = b.length;
        }
        byte[] name = POINTS_PER_TIER_NAME;
        int last = name.length - 1;
        for (int at = from; at + name.length <= end; ) {
            byte tail = b[at + last];
            if (tail != name[last] || !matchesAt(b, at, name)) {
                at += SKIP[tail & 0xFF];
                continue;
            }
            int close = at + name.length;
            while (close < end && b[close] != ']') {
                close++;
            }
            if (close == end) {
                return 0;
            }
            Matcher tiers = POINTS_PER_TIER.matcher(new String(b, at, close + 1 - at, StandardCharsets.UTF_8));
            if (tiers.lookingAt()) {
                long read = 0;
                for (String t : tiers.group(1).split(",")) {
                    read += t.isBlank() ? 0 : Long.parseLong(t.trim());
                }
                return read;
            }
            at++;
        }
        return 0;
    }

    /** Horspool's shifts for the field's name: how far the name may move on for the byte under its last one. */
    private static final int[] SKIP = new int[256];

    static {
        Arrays.fill(SKIP, POINTS_PER_TIER_NAME.length);
        for (int i = 0; i < POINTS_PER_TIER_NAME.length - 1; i++) {
            SKIP[POINTS_PER_TIER_NAME[i] & 0xFF] = POINTS_PER_TIER_NAME.length - 1 - i;
        }
    }

    private static boolean matchesAt(byte[] b, int at, byte[] what) {
        for (int i = 0; i < what.length; i++) {
            if (b[at + i] != what[i]) {
                return false;
            }
        }
        return true;
    }

    /** Points a query may read in {@link #mutatedQueriesStayCleanAndWithinTheBudget}: about 10 dimension-windows. */
    static final long SMALL_BUDGET_POINTS = 3000;

    /**
     * Query strings mutated at the byte level (keys and values cut, doubled, percent-encoded,
     * overlong UTF-8, NUL, separators, repeated keys, long values) under a small points budget:
     * every answer is a 200 or a 4xx with a message (a 504 only where the query carries its own
     * {@code timeout=}), never a 5xx or an escaped exception; an answer that reports its work
     * ({@code db_points_per_tier}) read no more than the budget.
     */
    @Test
    void mutatedQueriesStayCleanAndWithinTheBudget() throws Exception {
        ApiServices services = ApiServices.of(parent.api);
        QueryBudget.Limits before = services.queryLimits();
        services.queryLimits(new QueryBudget.Limits(QueryBudget.Limits.DEFAULT_TIMEOUT_MILLIS, SMALL_BUDGET_POINTS));
        long[] answered = {0, 0};
        try {
            Fuzz.Result run = Fuzz.run("/api/v1 mutated query strings, small budget", SEED * 3, in -> {
                Random r = in.random();
                String path = r.nextInt(4) == 0 ? PATHS[r.nextInt(PATHS.length)] : "/api/v1/data";
                String q = mutateQuery(r, query(r) + (r.nextBoolean() ? "&options=jsonwrap&format=json" : ""));
                parent.clock.set(RecordedParent.LAST + 1 - r.nextInt(3));
                String where = path + "?" + q;
                in.show(where);
                if (routeAndCheck(services, path, q, where, SMALL_BUDGET_POINTS)) {
                    answered[0]++;
                } else {
                    answered[1]++;
                }
            });
            assertTrue(answered[0] > run.inputs() / 20 && answered[1] > run.inputs() / 20,
                    "the fuzzer should reach answers and refusals alike, got " + answered[0] + " and " + answered[1]);
        } finally {
            services.queryLimits(before);
        }
    }

    @Test
    void thePointsReadAreTheFirstMatchOfThePatternInTheAnswer() {
        String[] answers = {
            "{\"a\": 1}",
            "{\"db_points_per_tier\": [1, 2, 30]}",
            "{\"db_points_per_tier\":[]}",
            "x(\"db_points_per_tier\": [7]);",
            // a first occurrence the pattern does not match: the next one counts
            "{\"s\": \"\\\"db_points_per_tier\\\": x]\", \"db_points_per_tier\":\n [4,5]}",
            "{\"db_points_per_tier\": [1, 2",
            "\u00e9\u4e2d \"db_points_per_tier\": [ 11 ,12 ] \"db_points_per_tier\": [99]",
        };
        long[] expected = {0, 33, 0, 7, 9, 0, 23};
        for (int i = 0; i < answers.length; i++) {
            Matcher m = POINTS_PER_TIER.matcher(answers[i]);
            long byPattern = 0;
            if (m.find()) {
                for (String t : m.group(1).split(",")) {
                    byPattern += t.isBlank() ? 0 : Long.parseLong(t.trim());
                }
            }
            ByteBuf body = Unpooled.copiedBuffer("\u00e9" + answers[i], StandardCharsets.UTF_8);
            ByteBuf direct = Unpooled.directBuffer(body.readableBytes());
            try {
                body.readerIndex(2); // the answer after a prefix, as a slice of a larger buffer would be
                direct.writeBytes(body, body.readerIndex(), body.readableBytes());
                assertEquals(expected[i], byPattern, answers[i]);
                assertEquals(byPattern, pointsRead(body), answers[i]);
                assertEquals(byPattern, pointsRead(direct), "without an array: " + answers[i]);
            } finally {
                body.release();
                direct.release();
            }
        }
    }

    private static final String[] MUTATION_PIECES = {"&", "=", "&&", "==", "%", "%2", "%00", "%FF", "%C0%AE",
        "%E0%80%AE", "%2e%2e%2f", "%26", "%3D", "+", ";", "|", ",", "!", "*", "?", "#", "%20", "\u0000", "\u00ff",
        "after=", "before=", "points=", "group=", "options=", "format=", "dimension=", "chart=", "context=",
        "tier=", "timeout=", "gtime=", "group_options=", "-1", "0", "9223372036854775807", "1e308", "NaN",
        "system.cpu", "percentile", "median", "jsonwrap", "json2", "nonzero", "datasource"};

    /** Byte-level edits of a query string: insertions of separators and keys, cuts, doublings, long runs. */
    static String mutateQuery(Random r, String query) {
        StringBuilder sb = new StringBuilder(query);
        int edits = 1 + r.nextInt(6);
        for (int e = 0; e < edits; e++) {
            int at = sb.length() == 0 ? 0 : r.nextInt(sb.length() + 1);
            switch (r.nextInt(7)) {
                case 0 -> sb.insert(at, MUTATION_PIECES[r.nextInt(MUTATION_PIECES.length)]);
                case 1 -> sb.insert(at, (char) r.nextInt(256));
                case 2 -> sb.delete(at, Math.min(sb.length(), at + 1 + r.nextInt(12)));
                case 3 -> {
                    int end = Math.min(sb.length(), at + 1 + r.nextInt(40));
                    sb.insert(end, sb.substring(at, end));
                }
                case 4 -> sb.append('&').append(MUTATION_PIECES[r.nextInt(MUTATION_PIECES.length)])
                        .append(MUTATION_PIECES[r.nextInt(MUTATION_PIECES.length)]);
                case 5 -> sb.insert(at, String.valueOf((char) ('a' + r.nextInt(26))).repeat(1 + r.nextInt(
                        r.nextInt(50) == 0 ? 20_000 : 64)));
                default -> {
                    if (at < sb.length()) {
                        sb.setCharAt(at, (char) r.nextInt(0x3000));
                    }
                }
            }
        }
        return sb.toString();
    }

    /**
     * Routes one query and checks the answer: 200 (JSON parses; work within {@code maxPoints}) or a
     * 400/404 with a message (504 only for a query's own {@code timeout=}). Returns whether it was a 200.
     */
    private static boolean routeAndCheck(ApiServices services, String path, String q, String where, long maxPoints)
            throws IOException {
        ApiResponse resp;
        try {
            resp = ApiRouter.route(parent.api, services, path, q, PooledByteBufAllocator.DEFAULT, "fuzz", null);
        } catch (ApiError e) {
            boolean ownTimeout = e.status().equals(HttpResponseStatus.GATEWAY_TIMEOUT)
                    && q.toLowerCase(Locale.ROOT).contains("timeout");
            // a legal query may be large (see theLargestLegalAnswerOfAVirtualPointsWindow): on a machine
            // without spare cores it can pass the server's own deadline, which answers as designed
            boolean serverDeadline = e.status().equals(HttpResponseStatus.GATEWAY_TIMEOUT)
                    && e.getMessage().contains("([web] query timeout ms = ");
            assertTrue(e.status().equals(HttpResponseStatus.BAD_REQUEST) || e.status().equals(HttpResponseStatus.NOT_FOUND)
                            || ownTimeout || serverDeadline, () -> where + " -> " + e.status() + " " + e.getMessage());
            assertTrue(!e.getMessage().isEmpty(), where);
            return false;
        }
        try {
            assertTrue(CLEAN.contains(resp.status().code()) && resp.status().code() != 504,
                    () -> where + " -> " + resp.status());
            if (resp.status().code() != 200) {
                return false;
            }
            checkJson(resp.contentType(), resp.body(), q, where);
            if (maxPoints != Long.MAX_VALUE) {
                long read = pointsRead(resp.body());
                assertTrue(read <= maxPoints, () -> where + ": read " + read + " points, budget " + maxPoints);
            }
            return true;
        } finally {
            resp.body().release();
        }
    }

    /**
     * JSON answers must parse: read to the last token (syntax checked throughout, nothing built: a tree
     * of each answer was the costliest part of an input). Netdata's csvjsonarray and google_json are
     * JavaScript, not JSON, though typed as JSON.
     */
    private static void checkJson(String contentType, String body, String query, String where) {
        if (!isJson(contentType, query)) {
            return;
        }
        try (JsonParser parser = Vectors.JSON.getFactory().createParser(body)) {
            readAllTokens(parser);
        } catch (IOException e) {
            fail(where + ": invalid JSON: " + e.getMessage() + "\n" + body.substring(0, Math.min(400, body.length())));
        }
    }

    /** {@link #checkJson(String, String, String, String)} on the answer's bytes (UTF-8), not copied to a String. */
    private static void checkJson(String contentType, ByteBuf body, String query, String where) {
        if (!isJson(contentType, query)) {
            return;
        }
        // the answer's own array where it has one: no stream, no copy
        try (JsonParser parser = body.hasArray()
                ? Vectors.JSON.getFactory().createParser(body.array(), body.arrayOffset() + body.readerIndex(),
                        body.readableBytes())
                : Vectors.JSON.getFactory().createParser((InputStream) new ByteBufInputStream(body.duplicate()))) {
            readAllTokens(parser);
        } catch (IOException e) {
            fail(where + ": invalid JSON: " + e.getMessage() + "\n"
                    + body.toString(body.readerIndex(), Math.min(400, body.readableBytes()), StandardCharsets.UTF_8));
        }
    }

    private static boolean isJson(String contentType, String query) {
        return contentType.equals(ContentTypes.JSON) && !query.contains("google") && !query.contains("csvjsonarray");
    }

    private static void readAllTokens(JsonParser parser) throws IOException {
        while (parser.nextToken() != null) {
            // every token is read, so every byte is checked
        }
    }
}
