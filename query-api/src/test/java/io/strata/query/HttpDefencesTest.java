package io.strata.query;

import io.strata.query.http.HttpAccess;
import io.strata.query.http.HttpPolicy;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * The HTTP side against clients that misbehave: one that pipelines requests and never reads its
 * answers, one that sends a request a byte at a time, one that keeps an idle connection; and the
 * ACL decided by the port (403 with Netdata's text, a redirect to TLS). Sockets have read timeouts
 * far above the deadlines under test, so a missing defence fails rather than hangs.
 */
class HttpDefencesTest {

    static final int WAIT_MILLIS = 15_000;
    static final int BIG_FILE_BYTES = 1 << 20;

    @TempDir
    static Path dir;
    static RecordedParent parent;
    static ApiContext api;
    static Path web;
    final List<TestServer> servers = new ArrayList<>();
    final List<Socket> sockets = new ArrayList<>();

    @BeforeAll
    static void start() throws Exception {
        parent = new RecordedParent(dir.resolve("db"));
        web = Files.createDirectories(dir.resolve("web"));
        Files.writeString(web.resolve("index.html"), "<html>dashboard</html>");
        Files.write(web.resolve("big.bin"), new byte[BIG_FILE_BYTES]);
        Files.writeString(web.resolve(".htpasswd"), "admin:secret");
        Files.createDirectories(web.resolve(".git"));
        Files.writeString(web.resolve(".git/config"), "[core]");
        api = new ApiContext(parent.engine, RecordedParent.PARENT, "ndq-parent", web, parent.clock,
                ApiContext.defaultExecutor(2));
    }

    @AfterAll
    static void stop() throws IOException {
        api.close();
        parent.close();
    }

    @AfterEach
    void close() throws IOException {
        for (Socket s : sockets) {
            s.close();
        }
        for (TestServer s : servers) {
            s.close();
        }
    }

    TestServer server(HttpPolicy policy) throws InterruptedException {
        TestServer s = new TestServer(api, policy);
        servers.add(s);
        return s;
    }

    Socket connect(TestServer s, int receiveBuffer) throws IOException {
        Socket sock = new Socket();
        sockets.add(sock);
        if (receiveBuffer > 0) {
            sock.setReceiveBufferSize(receiveBuffer);
        }
        sock.connect(new InetSocketAddress("127.0.0.1", s.port()), WAIT_MILLIS);
        sock.setSoTimeout(WAIT_MILLIS);
        return sock;
    }

    static void send(Socket s, String text) throws IOException {
        OutputStream out = s.getOutputStream();
        out.write(text.getBytes(StandardCharsets.US_ASCII));
        out.flush();
    }

    /** Everything until the server closes; fails when it keeps the connection past the wait. */
    static String readToClose(Socket s) throws IOException {
        InputStream in = s.getInputStream();
        StringBuilder sb = new StringBuilder();
        byte[] buf = new byte[8192];
        try {
            for (int n; (n = in.read(buf)) >= 0; ) {
                sb.append(new String(buf, 0, n, StandardCharsets.ISO_8859_1));
            }
        } catch (SocketTimeoutException e) {
            fail("the server kept the connection open for " + WAIT_MILLIS + " ms; got so far: " + sb);
        } catch (java.net.SocketException e) {
            // reset: closed as well
        }
        return sb.toString();
    }

    static double answered2xx() {
        return api.meters().registry().get("strata.http.responses").tag("status", "2xx").counter().count();
    }

    @Test
    void aClientThatPipelinesAndNeverReadsStopsBeingAnsweredAndGetsEverythingOnceItReads() throws Exception {
        TestServer s = server(HttpPolicy.defaults());
        Socket sock = connect(s, 64 * 1024);
        int requests = 64;
        double before = answered2xx();
        send(sock, "GET /big.bin HTTP/1.1\r\nHost: x\r\n\r\n".repeat(requests));
        // the server answers until the socket buffers and its own write buffer are full, then waits:
        // once it has begun, 3 s more let it fill them (a bound on what it makes, whatever the pace)
        long firstDeadline = System.nanoTime() + 60_000_000_000L;
        double most = answered2xx() - before;
        while (most < 1 && System.nanoTime() < firstDeadline) {
            Thread.sleep(50);
            most = answered2xx() - before;
        }
        assertTrue(most >= 1, "nothing answered at all within 60 s");
        long end = System.nanoTime() + 3_000_000_000L;
        while (System.nanoTime() < end) {
            most = answered2xx() - before;
            Thread.sleep(50);
        }
        // each answer is 1 MiB: what the kernel buffers hold (a few MiB) plus the high water mark
        assertTrue(most < 24, most + " of " + requests + " 1 MiB answers were made for a client that reads nothing");

        // once the client reads, every answer comes, in order
        InputStream in = sock.getInputStream();
        long expected = (long) requests * BIG_FILE_BYTES;
        long bodies = 0;
        int heads = 0;
        byte[] buf = new byte[64 * 1024];
        StringBuilder head = new StringBuilder();
        long remainingBody = 0;
        while (heads < requests || remainingBody > 0) {
            int n = in.read(buf);
            if (n < 0) {
                fail("closed after " + heads + " answers");
            }
            int i = 0;
            while (i < n) {
                if (remainingBody > 0) {
                    int take = (int) Math.min(remainingBody, n - i);
                    remainingBody -= take;
                    bodies += take;
                    i += take;
                    continue;
                }
                head.append((char) buf[i++]);
                if (head.length() >= 4 && head.substring(head.length() - 4).equals("\r\n\r\n")) {
                    String h = head.toString();
                    assertTrue(h.startsWith("HTTP/1.1 200 OK"), h);
                    int cl = h.toLowerCase().indexOf("content-length: ");
                    remainingBody = Long.parseLong(h.substring(cl + 16, h.indexOf('\r', cl)).trim());
                    heads++;
                    head.setLength(0);
                }
            }
        }
        assertEquals(expected, bodies);
    }

    @Test
    void aRequestSentOneByteAtATimeIsCutAtTheRequestDeadline() throws Exception {
        TestServer s = server(HttpPolicy.defaults().withTimeouts(1, 60));
        Socket sock = connect(s, 0);
        byte[] request = ("GET /api/v1/info HTTP/1.1\r\nHost: x\r\nUser-Agent: " + "a".repeat(200) + "\r\n\r\n")
                .getBytes(StandardCharsets.US_ASCII);
        long start = System.nanoTime();
        try {
            for (int i = 0; i < request.length - 2; i++) {
                sock.getOutputStream().write(request[i]);
                sock.getOutputStream().flush();
                Thread.sleep(50);
                if (System.nanoTime() - start > WAIT_MILLIS * 1_000_000L) {
                    fail("still open after " + WAIT_MILLIS + " ms");
                }
            }
            // all but the final CRLF sent: the server must have closed by now or close at once
            assertEquals("", readToClose(sock));
        } catch (IOException expected) {
            // closed by the server while we were writing
        }
    }

    @Test
    void anIdleKeepAliveConnectionIsClosed() throws Exception {
        TestServer s = server(HttpPolicy.defaults().withTimeouts(10, 1));
        Socket sock = connect(s, 0);
        send(sock, "GET /index.html HTTP/1.1\r\nHost: x\r\n\r\n");
        String all = readToClose(sock);
        assertTrue(all.startsWith("HTTP/1.1 200 OK"), all);
        assertTrue(all.endsWith("<html>dashboard</html>"), all);
    }

    static HttpPolicy access(Set<HttpAccess> access, boolean redirect) {
        return new HttpPolicy(10, 60, access, redirect, true, null);
    }

    @Test
    void whatTheAclDoesNotAllowIsAnswered403WithNetdatasText() throws Exception {
        TestServer s = server(access(EnumSet.of(HttpAccess.BADGES, HttpAccess.NETDATA_CONF), false));
        for (String path : new String[]{"/api/v1/info", "/index.html", "/host/ndq-parent/api/v1/data?chart=x",
                "/api/v1/registry?action=hello", "/metrics"}) {
            var r = s.get(path);
            assertEquals(403, r.statusCode(), path);
            assertEquals("You are not allowed to access this resource.", r.body(), path);
        }
        TestServer dashboardOnly = server(access(EnumSet.of(HttpAccess.DASHBOARD), false));
        assertEquals(200, dashboardOnly.get("/api/v1/info").statusCode());
        assertEquals(403, dashboardOnly.get("/netdata.conf").statusCode());
        assertEquals(403, dashboardOnly.get("/api/v1/manage/health?cmd=RESET").statusCode());
        assertEquals(403, dashboardOnly.get("/api/v1/registry?action=hello").statusCode());
    }

    @Test
    void plainTextOnAForcedTlsListenerIsRedirected() throws Exception {
        TestServer s = server(access(HttpAccess.all(), true));
        Socket sock = connect(s, 0);
        send(sock, "GET /api/v1/info?x=1 HTTP/1.1\r\nHost: parent.example:19999\r\nConnection: close\r\n\r\n");
        String r = readToClose(sock);
        assertTrue(r.startsWith("HTTP/1.1 301 Moved Permanently\r\n"), r);
        assertTrue(r.contains("\r\nlocation: https://parent.example:19999/api/v1/info?x=1\r\n")
                || r.contains("\r\nLocation: https://parent.example:19999/api/v1/info?x=1\r\n"), r);
    }

    @Test
    void dotfilesAreNotServedAndNothingIsSniffed() throws Exception {
        TestServer s = server(HttpPolicy.defaults());
        for (String path : new String[]{"/.htpasswd", "/.git/config", "/%2Ehtpasswd", "/x/../.htpasswd"}) {
            var r = s.get(path);
            assertEquals(404, r.statusCode(), path);
            assertTrue(!r.body().contains("secret") && !r.body().contains("[core]"), path);
        }
        var ok = s.get("/index.html");
        assertEquals(200, ok.statusCode());
        assertEquals("nosniff", ok.headers().firstValue("X-Content-Type-Options").orElse(""));
        assertEquals("nosniff", s.get("/api/v1/info").headers().firstValue("X-Content-Type-Options").orElse(""));
    }

    @Test
    void aQueryThatWouldReadMoreThanTheCapIsRefusedWithTheLimitNamed() throws Exception {
        TestServer s = server(HttpPolicy.defaults());
        io.strata.query.http.ApiServices services = io.strata.query.http.ApiServices.of(api);
        String q = "/api/v1/data?chart=system.cpu&after=-600&points=10&group=";
        try {
            services.queryLimits(new io.strata.query.data.QueryBudget.Limits(10_000, 5));
            // every grouping, the ones that read every stored value (median, percentile) included
            for (String group : new String[]{"average", "median", "percentile95", "max", "sum", "stddev"}) {
                var r = s.get(q + group);
                assertEquals(400, r.statusCode(), group + ": " + r.body());
                assertTrue(r.body().contains("more than 5 points") && r.body().contains("max points read per query"),
                        r.body());
            }
            services.queryLimits(new io.strata.query.data.QueryBudget.Limits(10_000, 100_000));
            for (String group : new String[]{"average", "median"}) {
                assertEquals(200, s.get(q + group).statusCode(), group);
            }
        } finally {
            services.queryLimits(io.strata.query.data.QueryBudget.Limits.DEFAULTS);
        }
    }

    @Test
    void thePastDeadlineOfAQueryStopsItsReadWith504() throws Exception {
        io.strata.query.data.QueryBudget.Limits limits = new io.strata.query.data.QueryBudget.Limits(5_000, 1_000_000);
        // started long ago: the first look at the clock finds the deadline passed
        io.strata.query.data.QueryBudget late = io.strata.query.data.QueryBudget.start(limits, 200,
                System.nanoTime() - 60_000_000_000L);
        io.strata.query.data.DataRequest req = io.strata.query.data.DataRequest.parse(
                io.strata.query.http.QueryString.parse("chart=system.cpu&after=-600&points=10&group=median"));
        io.strata.query.http.ApiError e = org.junit.jupiter.api.Assertions.assertThrows(
                io.strata.query.http.ApiError.class,
                () -> io.strata.query.data.DataQuery.execute(api.engine(), ApiServicesHost.local(api), req,
                        api.nowSeconds(), late));
        assertEquals(504, e.status().code());
        assertEquals("The query timed out after 200 ms (timeout=200).", e.getMessage());
        // the server's timeout bounds what a request asks for
        io.strata.query.data.QueryBudget capped = io.strata.query.data.QueryBudget.start(limits, 999_999,
                System.nanoTime() - 60_000_000_000L);
        e = org.junit.jupiter.api.Assertions.assertThrows(io.strata.query.http.ApiError.class,
                capped::checkDeadline);
        assertEquals("The query timed out after 5000 ms ([web] query timeout ms = 5000).", e.getMessage());
    }

    @Test
    void answersGzippedOnAPoolOfTheirOwnComeWholeAndInOrder() throws Exception {
        io.netty.util.concurrent.DefaultEventExecutorGroup gzipPool = new io.netty.util.concurrent.DefaultEventExecutorGroup(
                1, new io.netty.util.concurrent.DefaultThreadFactory("test-gzip", true));
        TestServer s = server(new HttpPolicy(10, 60, HttpAccess.all(), false, true, gzipPool));
        try {
            var plain = s.get("/api/v1/info");
            assertEquals(200, plain.statusCode());
            var gz = s.getBytes("/api/v1/info", "Accept-Encoding", "gzip");
            assertEquals("gzip", gz.headers().firstValue("Content-Encoding").orElse(""));
            String unzipped = TestServer.gunzip(gz.body());
            assertTrue(unzipped.contains("\"uid\""), unzipped);
            // pipelined requests for different files: every answer, gzipped, in the order asked
            Socket sock = connect(s, 0);
            StringBuilder reqs = new StringBuilder();
            for (int i = 0; i < 20; i++) {
                reqs.append("GET ").append(i % 2 == 0 ? "/index.html" : "/api/v1/info").append(" HTTP/1.1\r\nHost: x\r\n")
                        .append("Accept-Encoding: gzip\r\n").append(i == 19 ? "Connection: close\r\n" : "")
                        .append("\r\n");
            }
            send(sock, reqs.toString());
            String all = readToClose(sock);
            String[] answers = all.split("HTTP/1\\.1 200 OK");
            assertEquals(21, answers.length, all.length() + " bytes");
            for (int i = 1; i < answers.length; i++) {
                String type = answers[i].toLowerCase(java.util.Locale.ROOT);
                assertTrue(type.contains(i % 2 == 1 ? "content-type: text/html" : "content-type: application/json"),
                        "answer " + i + " out of order: " + type.substring(0, Math.min(300, type.length())));
            }
        } finally {
            // the server first: its connections' handlers run on the pool until they are closed
            s.close();
            gzipPool.shutdownGracefully(0, 1, java.util.concurrent.TimeUnit.SECONDS);
        }
    }

    /** The node's own host as the router sees it. */
    static final class ApiServicesHost {
        static io.strata.query.catalog.HostView local(ApiContext api) {
            return io.strata.query.http.ApiServices.of(api).catalog().get().local();
        }
    }
}
