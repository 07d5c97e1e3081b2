package io.strata.query;

import io.strata.testsupport.GuardPerClass;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.strata.query.http.ApiError;
import io.strata.query.http.ApiResponse;
import io.strata.query.http.ApiRouter;
import io.strata.query.http.ApiServices;
import io.strata.query.http.ContentTypes;

import java.io.IOException;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Random;
import java.util.Set;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

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

    static final int ITERATIONS = Integer.getInteger("strata.fuzz.iterations", 20000);
    static final long SEED = Long.getLong("strata.fuzz.seed", 0x5EED_0F_A9L);
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
        Random r = new Random(SEED);
        ApiServices services = ApiServices.of(parent.api);
        int byHttp = Math.min(ITERATIONS / 50, 400);
        int statuses200 = 0;
        for (int i = 0; i < ITERATIONS; i++) {
            String path = PATHS[r.nextInt(PATHS.length)];
            String q = query(r);
            if (path.endsWith("allmetrics") && r.nextInt(20) != 0) {
                // a whole dump is slow and teaches nothing new each time: mostly one chart, any format
                q += "&filter=" + CHARTS[r.nextInt(CHARTS.length)] + "&format="
                        + new String[] {"shell", "json", "prometheus", "prometheus_all_hosts", "x"}[r.nextInt(5)];
            }
            parent.clock.set(RecordedParent.LAST + 1 - r.nextInt(3));
            String where = "iteration " + i + " (seed " + SEED + "): " + path + "?" + q;
            if (i < byHttp) {
                HttpResponse<String> resp;
                try {
                    resp = server.get(TestServer.encodeIllegal(path + "?" + q));
                } catch (IllegalArgumentException notAUri) {
                    // java.net.URI refuses some raw bytes a socket would carry; the router part covers them
                    continue;
                }
                assertTrue(CLEAN.contains(resp.statusCode()), where + " -> " + resp.statusCode() + " " + resp.body());
                if (resp.statusCode() == 200) {
                    statuses200++;
                    checkJson(resp.headers().firstValue("content-type").orElse(""), resp.body(), q, where);
                }
                continue;
            }
            ApiResponse resp;
            try {
                resp = ApiRouter.route(parent.api, services, path, q, PooledByteBufAllocator.DEFAULT, "fuzz", null);
            } catch (ApiError e) {
                // 504: a random timeout= (in ms) shorter than the query
                assertTrue(e.status().equals(HttpResponseStatus.BAD_REQUEST) || e.status().equals(HttpResponseStatus.NOT_FOUND)
                                || e.status().equals(HttpResponseStatus.GATEWAY_TIMEOUT),
                        where + " -> " + e.status() + " " + e.getMessage());
                assertTrue(!e.getMessage().isEmpty(), where);
                continue;
            } catch (Exception | Error e) {
                fail(where + " threw " + e, e);
                return;
            }
            try {
                assertTrue(CLEAN.contains(resp.status().code()), where + " -> " + resp.status());
                if (resp.status().code() == 200) {
                    statuses200++;
                    checkJson(resp.contentType(), resp.body().toString(StandardCharsets.UTF_8), q, where);
                }
            } finally {
                resp.body().release();
            }
        }
        assertTrue(statuses200 > ITERATIONS / 10, "the fuzzer should reach real answers, got " + statuses200);
    }

    /** JSON answers must parse (Netdata's csvjsonarray is the one JSON-typed format that is not JSON). */
    private static void checkJson(String contentType, String body, String query, String where) {
        // Netdata's csvjsonarray and google_json are JavaScript, not JSON, though typed as JSON
        if (!contentType.equals(ContentTypes.JSON) || query.contains("google") || query.contains("csvjsonarray")) {
            return;
        }
        try {
            Vectors.JSON.readTree(body);
        } catch (IOException e) {
            fail(where + ": invalid JSON: " + e.getMessage() + "\n" + body.substring(0, Math.min(400, body.length())));
        }
    }
}
