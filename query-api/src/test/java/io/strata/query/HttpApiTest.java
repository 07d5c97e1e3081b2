package io.strata.query;

import io.strata.testsupport.GuardPerClass;
import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.strata.query.http.ApiRequestHandler;

import java.io.IOException;
import java.net.Socket;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The HTTP side as Netdata's headers vectors show it: routing of {@code /api/v1} and
 * {@code /host/<name|guid>/api/v1}, Netdata's error statuses and texts, CORS and the preflight,
 * gzip, and the static files of the web directory; all through a real server whose pipeline gets
 * the API installed after its first bytes were read.
 */
@GuardPerClass("the HTTP client keeps its connection to the server from one test to the next")
class HttpApiTest {

    @TempDir
    static Path dir;
    static RecordedParent parent;
    static ApiContext api;
    static TestServer server;
    static Path web;

    @BeforeAll
    static void start() throws Exception {
        parent = new RecordedParent(dir.resolve("db"));
        web = Files.createDirectories(dir.resolve("web"));
        Files.writeString(web.resolve("index.html"), "<html>dashboard</html>");
        Files.createDirectories(web.resolve("old"));
        Files.writeString(web.resolve("old/index.html"), "<html>old</html>");
        Files.writeString(web.resolve("dashboard.js"), "var netdataDashboard = {};");
        Files.writeString(web.resolve("main.css"), "body { color: black; }");
        Files.writeString(dir.resolve("secret.txt"), "not for the web");
        api = new ApiContext(parent.engine, RecordedParent.PARENT, "ndq-parent", web, parent.clock,
                ApiContext.defaultExecutor(2));
        server = new TestServer(api);
    }

    @AfterAll
    static void stop() throws IOException {
        server.close();
        api.close();
        parent.close();
    }

    static void assertNetdataHeaders(HttpResponse<?> r, String contentType) {
        assertEquals(contentType, r.headers().firstValue("content-type").orElse(null));
        assertEquals("true", r.headers().firstValue("access-control-allow-credentials").orElse(null));
        assertTrue(r.headers().firstValue("date").isPresent());
    }

    @Test
    void theAccessLogHasALinePerAnsweredRequestWhenItIsOn() throws Exception {
        Logger accessLogger = (Logger) LoggerFactory.getLogger(ApiRequestHandler.ACCESS_LOGGER);
        Level before = accessLogger.getLevel();
        ListAppender<ILoggingEvent> logged = new ListAppender<>();
        logged.start();
        accessLogger.addAppender(logged);
        try {
            accessLogger.setLevel(Level.OFF);
            server.get("/api/v1/info");
            assertEquals(0, logged.list.size(), "off: no line");
            accessLogger.setLevel(Level.INFO);
            server.get("/api/v1/nosuchcommand?x=1");
        } finally {
            accessLogger.detachAppender(logged);
            accessLogger.setLevel(before);
        }
        assertEquals(1, logged.list.size());
        String line = logged.list.get(0).getFormattedMessage();
        assertTrue(line.matches("127\\.0\\.0\\.1 'GET' \\(sent \\d+ bytes, total \\d+\\.\\d\\d ms\\) 404 "
                + "'/api/v1/nosuchcommand\\?x=1'"), line);
    }

    @Test
    void unknownCommandVersionAndHostAnswerAsNetdata() throws Exception {
        Map<String, String> rec = Vectors.headers("unsupported");
        HttpResponse<String> r = server.get("/api/v1/nosuchcommand");
        assertEquals(404, r.statusCode());
        assertEquals(Vectors.body("unsupported"), r.body());
        assertNetdataHeaders(r, rec.get("content-type"));
        assertEquals(rec.get("cache-control"), r.headers().firstValue("cache-control").orElse(null));
        assertEquals("no-cache", r.headers().firstValue("pragma").orElse(null));

        r = server.get("/api/v2/info");
        assertEquals(404, r.statusCode());
        assertEquals(Vectors.body("api-v2-info"), r.body());
        assertNetdataHeaders(r, Vectors.headers("api-v2-info").get("content-type"));

        r = server.get("/host/no-such-host/api/v1/info");
        assertEquals(404, r.statusCode());
        assertEquals(Vectors.body("host-child-unknown"), r.body());
        assertNetdataHeaders(r, Vectors.headers("host-child-unknown").get("content-type"));

        r = server.get("/api/v1/chart?chart=no.such");
        assertEquals(404, r.statusCode());
        assertEquals(Vectors.body("chart-missing"), r.body());

        r = server.get("/api/v1/data?chart=no.such&after=-10&points=5");
        assertEquals(404, r.statusCode());
        assertEquals(Vectors.body("data-missing-chart"), r.body());

        r = server.get("/api/v1/data?after=-10&points=5");
        assertEquals(400, r.statusCode());
        assertEquals(Vectors.body("data-no-chart"), r.body());
        assertNetdataHeaders(r, Vectors.headers("data-no-chart").get("content-type"));
    }

    @Test
    void hostPrefixRoutesByHostnameAndByGuid() throws Exception {
        HttpResponse<String> byName = server.get("/host/ndq-child/api/v1/info");
        HttpResponse<String> byGuid = server.get("/host/" + RecordedParent.CHILD.toString().toUpperCase() + "/api/v1/info");
        assertEquals(200, byName.statusCode());
        assertEquals(200, byGuid.statusCode());
        assertTrue(byName.body().contains("\"uid\": \"" + RecordedParent.CHILD + "\""));
        assertTrue(byGuid.body().contains("\"uid\": \"" + RecordedParent.CHILD + "\""));
        HttpResponse<String> own = server.get("/api/v1/info");
        assertTrue(own.body().contains("\"uid\": \"" + RecordedParent.PARENT + "\""));
        // the dashboard opened under /host/X/ joins its base and "/api/v1/..." with a double slash
        HttpResponse<String> doubled = server.get("/host/ndq-child//api/v1/info");
        assertEquals(200, doubled.statusCode());
        assertTrue(doubled.body().contains("\"uid\": \"" + RecordedParent.CHILD + "\""));
        assertEquals(200, server.get("//api/v1//alarms?active").statusCode());
    }

    @Test
    void originIsEchoedAndPreflightAnswered() throws Exception {
        Map<String, String> rec = Vectors.headers("data-cors-origin");
        HttpResponse<String> r = server.get("/api/v1/info", "Origin", "http://example.test");
        assertEquals(rec.get("access-control-allow-origin"),
                r.headers().firstValue("access-control-allow-origin").orElse(null));
        HttpResponse<String> star = server.get("/api/v1/info");
        assertEquals("*", star.headers().firstValue("access-control-allow-origin").orElse(null));

        Map<String, String> pre = Vectors.headers("data-options-preflight");
        HttpResponse<String> o = server.request("OPTIONS", Vectors.path("data-options-preflight"),
                "Origin", "http://example.test", "Access-Control-Request-Method", "GET",
                "Access-Control-Request-Headers", "cache-control, pragma");
        assertEquals(200, o.statusCode());
        assertEquals(Vectors.body("data-options-preflight"), o.body());
        for (String h : new String[] {"access-control-allow-origin", "access-control-allow-credentials",
                "content-type", "access-control-allow-methods", "access-control-allow-headers",
                "access-control-max-age"}) {
            assertEquals(pre.get(h), o.headers().firstValue(h).orElse(null), h);
        }
        assertFalse(o.headers().firstValue("cache-control").isPresent());
    }

    @Test
    void gzipWhenTheClientAcceptsIt() throws Exception {
        HttpResponse<byte[]> r = server.getBytes(Vectors.path("data-gzip"), "Accept-Encoding", "gzip");
        assertEquals(200, r.statusCode());
        assertEquals("gzip", r.headers().firstValue("content-encoding").orElse(null));
        String body = TestServer.gunzip(r.body());
        assertTrue(body.startsWith("{\n \"labels\": [\"time\",\"guest_nice\""), body);
        HttpResponse<String> plain = server.get(Vectors.path("data-gzip"));
        assertFalse(plain.headers().firstValue("content-encoding").isPresent());
        assertEquals(plain.body(), body);
    }

    @Test
    void staticFilesServeTheDashboardAndNothingOutsideIt() throws Exception {
        HttpResponse<String> index = server.get("/");
        assertEquals(200, index.statusCode());
        assertEquals("<html>dashboard</html>", index.body());
        assertNetdataHeaders(index, Vectors.headers("static-index").get("content-type"));
        assertEquals("public", index.headers().firstValue("cache-control").orElse(null));

        assertEquals("<html>old</html>", server.get("/old/").body());
        assertEquals("<html>dashboard</html>", server.get("/host/ndq-child/").body());
        HttpResponse<String> js = server.get("/dashboard.js");
        assertNetdataHeaders(js, Vectors.headers("static-dashboard-js").get("content-type"));
        assertNetdataHeaders(server.get("/main.css"), Vectors.headers("static-main-css").get("content-type"));

        HttpResponse<String> missing = server.get("/nosuch.html");
        assertEquals(404, missing.statusCode());
        assertEquals(Vectors.headers("static-missing").get("content-type"),
                missing.headers().firstValue("content-type").orElse(null));
        assertTrue(missing.body().startsWith("File does not exist, or is not accessible: "));

        for (String escape : new String[] {"/../secret.txt", "/%2e%2e/secret.txt", "/old/../../secret.txt",
                "/..%2fsecret.txt", "/%2e%2e%5csecret.txt", "/old%00/index.html"}) {
            String raw = rawGet(escape);
            assertTrue(raw.startsWith("HTTP/1.1 404") || raw.startsWith("HTTP/1.1 400"), escape + ": " + raw);
            assertFalse(raw.contains("not for the web"), escape);
        }
    }

    /** Sends a request line as given (HttpClient would normalise the path). */
    static String rawGet(String target) throws IOException {
        try (Socket s = new Socket("127.0.0.1", server.port())) {
            s.getOutputStream().write(("GET " + target + " HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
                    .getBytes(StandardCharsets.US_ASCII));
            return new String(s.getInputStream().readAllBytes(), StandardCharsets.ISO_8859_1);
        }
    }

    @Test
    void pipelinedRequestsAreAnsweredInOrderOnOneConnection() throws Exception {
        StringBuilder req = new StringBuilder();
        String[] paths = {"/api/v1/info", "/api/v1/nosuchcommand", "/api/v1/data?chart=system.cpu&after=-5&points=5",
                "/api/v1/alarms?active", "/api/v1/chart?chart=no.such"};
        for (String p : paths) {
            req.append("GET ").append(p).append(" HTTP/1.1\r\nHost: x\r\n\r\n");
        }
        req.append("GET /api/v1/aclk HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
        String raw;
        try (Socket s = new Socket("127.0.0.1", server.port())) {
            s.getOutputStream().write(req.toString().getBytes(StandardCharsets.US_ASCII));
            raw = new String(s.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        }
        int at = 0;
        String[] statuses = {"200", "404", "200", "200", "404", "200"};
        String[] marks = {"\"mirrored_hosts\"", "Unsupported v1 API command", "\"labels\"", "\"alarms\"",
                "Chart is not found", "aclk-available"};
        for (int i = 0; i < statuses.length; i++) {
            int status = raw.indexOf("HTTP/1.1 " + statuses[i], at);
            assertTrue(status >= at, "answer " + i + " in order");
            int mark = raw.indexOf(marks[i], status);
            assertTrue(mark > status, "body of answer " + i);
            at = mark;
        }
    }

    @Test
    void headAnswersHeadersOnlyAndOtherMethodsAreRefused() throws Exception {
        HttpResponse<String> head = server.request("HEAD", "/api/v1/info");
        assertEquals(200, head.statusCode());
        assertEquals("", head.body());
        HttpResponse<String> post = server.request("POST", "/api/v1/info");
        assertEquals(405, post.statusCode());
    }

    @Test
    void alarmsAndRegistryHelloHaveTheShapesTheDashboardNeeds() throws Exception {
        var alarms = Vectors.JSON.readTree(server.get("/api/v1/alarms?active").body());
        var recorded = Vectors.json("alarms-active");
        assertEquals(GoldenAssert.fieldNames(recorded), GoldenAssert.fieldNames(alarms));
        var hello = Vectors.JSON.readTree(server.get("/api/v1/registry?action=hello").body());
        assertEquals(GoldenAssert.fieldNames(Vectors.json("registry-hello")), GoldenAssert.fieldNames(hello));
        assertEquals(RecordedParent.PARENT.toString(), hello.get("machine_guid").asText());
        assertTrue(hello.get("registry").asText().startsWith("http://127.0.0.1:"));
        // the dashboard then registers its visit there: Netdata without a registry says "disabled"
        HttpResponse<String> access = server.get("/api/v1/registry?action=access&machine=" + RecordedParent.PARENT
                + "&name=ndq-parent&url=http:%2F%2F127.0.0.1%2F");
        assertEquals(200, access.statusCode());
        var accessJson = Vectors.JSON.readTree(access.body());
        assertEquals("access", accessJson.get("action").asText());
        assertEquals("disabled", accessJson.get("status").asText());
        assertEquals(RecordedParent.PARENT.toString(), accessJson.get("machine_guid").asText());
        assertEquals(400, server.get("/api/v1/registry?action=nonsense").statusCode());
    }
}
