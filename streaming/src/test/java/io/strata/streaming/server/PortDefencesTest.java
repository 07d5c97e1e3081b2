package io.strata.streaming.server;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.strata.engine.EngineConfig;
import io.strata.engine.StorageEngine;
import io.strata.engine.netdata.SimplePattern;
import io.strata.streaming.auth.StreamAuthorizer;
import io.strata.streaming.auth.StreamConfig;
import io.strata.streaming.config.IniFile;
import io.strata.streaming.handshake.Capabilities;
import io.strata.streaming.handshake.HandshakeReplies;
import io.strata.streaming.receiver.ReceiverContext;
import io.strata.streaming.receiver.ReceiverLimits;
import io.strata.streaming.receiver.ReceiverRegistry;
import io.strata.streaming.receiver.ReceiverStats;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.BooleanSupplier;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * The port against clients that do not play by the rules: silence, a byte at a time, too many
 * connections from one address or in all, clients its ACL refuses. Every socket here has a read
 * timeout far above the deadline under test, so a defence that is missing fails the test instead of
 * hanging it.
 */
class PortDefencesTest {

    static final String KEY = "11111111-2222-3333-4444-555555555555";
    /** Longest a test waits for what should happen within about a second. */
    static final int WAIT_MILLIS = 15_000;

    @TempDir
    Path dir;
    StorageEngine engine;
    ReceiverContext rc;
    final List<StreamServer> servers = new ArrayList<>();
    final List<Socket> sockets = new ArrayList<>();

    @BeforeEach
    void open() throws Exception {
        engine = StorageEngine.open(EngineConfig.defaults(dir.resolve("db")));
        StreamConfig conf = StreamConfig.from(IniFile.parse("[" + KEY + "]\n\tenabled = yes\n", "stream.conf"));
        StreamAuthorizer auth = new StreamAuthorizer(conf, true, Capabilities.NETDATA_1_37_1,
                UUID.randomUUID().toString(), 0);
        rc = new ReceiverContext(engine, auth, new ReceiverRegistry(), ReceiverLimits.DEFAULTS, new ReceiverStats(),
                ReceiverContext.wallClockMicros(), 600, null);
    }

    @AfterEach
    void close() throws IOException {
        for (Socket s : sockets) {
            s.close();
        }
        for (StreamServer s : servers) {
            s.close();
        }
        engine.close();
    }

    /**
     * An HTTP side that answers "OK" and closes once it has a whole request head, telling the port that
     * the handshake is over then (as the query API does).
     */
    static final HttpPipelineInstaller OK_HTTP = (p, conn) -> p.addLast(new ChannelInboundHandlerAdapter() {
        final StringBuilder head = new StringBuilder();

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            ByteBuf b = (ByteBuf) msg;
            head.append(b.toString(StandardCharsets.ISO_8859_1));
            b.release();
            if (head.indexOf("\r\n\r\n") >= 0) {
                conn.handshakeDone().run();
                ctx.writeAndFlush(Unpooled.copiedBuffer("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nOK",
                        StandardCharsets.US_ASCII)).addListener(ChannelFutureListener.CLOSE);
            }
        }
    });

    int start(ServerLimits limits, WebAccessRules rules, Listener listener) throws IOException {
        StreamServer s = new StreamServer(rc, null, OK_HTTP, 2, limits, rules);
        servers.add(s);
        return s.bind(listener).getPort();
    }

    int start(ServerLimits limits) throws IOException {
        return start(limits, WebAccessRules.allowAll(), Listener.of(new InetSocketAddress("127.0.0.1", 0)));
    }

    Socket connect(int port) throws IOException {
        Socket s = new Socket();
        sockets.add(s);
        s.connect(new InetSocketAddress("127.0.0.1", port), WAIT_MILLIS);
        s.setSoTimeout(WAIT_MILLIS);
        return s;
    }

    /** Everything the server sends until it closes; fails when it keeps the connection past the wait. */
    static String readToClose(Socket s) throws IOException {
        InputStream in = s.getInputStream();
        StringBuilder sb = new StringBuilder();
        byte[] buf = new byte[4096];
        try {
            for (int n; (n = in.read(buf)) >= 0; ) {
                sb.append(new String(buf, 0, n, StandardCharsets.ISO_8859_1));
            }
        } catch (SocketTimeoutException e) {
            fail("the server kept the connection open for " + WAIT_MILLIS + " ms; got so far: " + sb);
        } catch (java.net.SocketException e) {
            // reset by the server: closed as well
        }
        return sb.toString();
    }

    static void send(Socket s, String text) throws IOException {
        OutputStream out = s.getOutputStream();
        out.write(text.getBytes(StandardCharsets.US_ASCII));
        out.flush();
    }

    static void waitFor(BooleanSupplier condition, String what) throws InterruptedException {
        long end = System.nanoTime() + WAIT_MILLIS * 1_000_000L;
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > end) {
                fail("not within " + WAIT_MILLIS + " ms: " + what);
            }
            Thread.sleep(10);
        }
    }

    static String streamRequest(String guid) {
        return "STREAM key=" + KEY + "&hostname=h&machine_guid=" + guid + "&ver=16376 HTTP/1.1\r\n"
                + "User-Agent: netdata/v1.37.1\r\nAccept: */*\r\n\r\n";
    }

    @Test
    void aConnectionThatSaysNothingIsClosedAfterTheFirstRequestTimeout() throws Exception {
        int port = start(ServerLimits.defaults().withFirstRequestTimeoutSeconds(1));
        Socket s = connect(port);
        assertEquals("", readToClose(s));
        StreamServer server = servers.get(0);
        waitFor(() -> server.gate().open() == 0 && server.gate().handshaking() == 0, "the counts back to 0");
    }

    @Test
    void aStreamHandshakeSentOneByteAtATimeIsClosedAtTheDeadline() throws Exception {
        int port = start(ServerLimits.defaults().withFirstRequestTimeoutSeconds(1));
        Socket s = connect(port);
        byte[] request = streamRequest(UUID.randomUUID().toString()).getBytes(StandardCharsets.US_ASCII);
        long start = System.nanoTime();
        try {
            // a byte every 100 ms: the whole request would take many seconds
            for (int i = 0; i < request.length - 4; i++) {
                s.getOutputStream().write(request[i]);
                s.getOutputStream().flush();
                Thread.sleep(100);
                if (System.nanoTime() - start > WAIT_MILLIS * 1_000_000L) {
                    fail("still open after " + WAIT_MILLIS + " ms of a byte every 100 ms");
                }
            }
            fail("the whole request minus its blank line was sent without the server closing");
        } catch (IOException expected) {
            // broken pipe or reset: the server closed the connection
        }
    }

    @Test
    void anAcceptedStreamIsNoLongerAHandshakeAndOutlivesTheDeadline() throws Exception {
        int port = start(ServerLimits.defaults().withFirstRequestTimeoutSeconds(1));
        StreamServer server = servers.get(0);
        Socket s = connect(port);
        send(s, streamRequest(UUID.randomUUID().toString()));
        byte[] buf = new byte[256];
        int n = s.getInputStream().read(buf);
        assertTrue(new String(buf, 0, n, StandardCharsets.US_ASCII).startsWith(HandshakeReplies.PROMPT_VERSION));
        waitFor(() -> server.gate().handshaking() == 0, "the handshake count back to 0");
        assertEquals(1, server.gate().open());
        // past the first-request deadline the stream is still open: a read times out rather than ends
        s.setSoTimeout(2500);
        try {
            int r = s.getInputStream().read();
            fail("the accepted stream was closed (read " + r + ")");
        } catch (SocketTimeoutException expected) {
            // still open
        }
    }

    @Test
    void connectionsOverThePerAddressCapGetTheRefusalTheirProtocolUnderstands() throws Exception {
        int port = start(ServerLimits.defaults().withConnections(100, 3));
        StreamServer server = servers.get(0);
        for (int i = 0; i < 3; i++) {
            connect(port);
        }
        waitFor(() -> server.gate().open() == 3, "3 connections counted");
        Socket http = connect(port);
        send(http, "GET /api/v1/info HTTP/1.1\r\nHost: x\r\n\r\n");
        String reply = readToClose(http);
        assertTrue(reply.startsWith("HTTP/1.1 503 Service Unavailable\r\n"), reply);
        assertTrue(reply.endsWith(HandshakeReplies.BUSY), reply);

        Socket stream = connect(port);
        send(stream, streamRequest(UUID.randomUUID().toString()));
        assertEquals(HandshakeReplies.BUSY, readToClose(stream));
        assertEquals(3, server.gate().open());
        waitFor(() -> server.gate().refusing() == 0, "refusals done");
    }

    @Test
    void theGlobalCapCountsEveryAddress() throws Exception {
        int port = start(ServerLimits.defaults().withConnections(2, 100));
        connect(port);
        connect(port);
        waitFor(() -> servers.get(0).gate().open() == 2, "2 connections counted");
        Socket third = connect(port);
        send(third, streamRequest(UUID.randomUUID().toString()));
        assertEquals(HandshakeReplies.BUSY, readToClose(third));
    }

    @Test
    void handshakesInProgressHaveTheirOwnCap() throws Exception {
        int port = start(ServerLimits.defaults().withHandshakes(100, 2));
        StreamServer server = servers.get(0);
        // an accepted stream is past its handshake and does not count
        Socket accepted = connect(port);
        send(accepted, streamRequest(UUID.randomUUID().toString()));
        accepted.getInputStream().read(new byte[256]);
        connect(port);
        connect(port);
        waitFor(() -> server.gate().handshaking() == 2 && server.gate().open() == 3, "2 handshakes, 3 open");
        Socket third = connect(port);
        send(third, streamRequest(UUID.randomUUID().toString()));
        assertEquals(HandshakeReplies.BUSY, readToClose(third));
    }

    /** Opens {@code n} connections one after the other, each counted as a handshake before the next. */
    List<Socket> connectInOrder(StreamServer server, int port, int n) throws Exception {
        List<Socket> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            int before = server.gate().handshaking();
            out.add(connect(port));
            waitFor(() -> server.gate().handshaking() == before + 1, "connection " + i + " counted as a handshake");
        }
        return out;
    }

    /** Sends a whole HTTP request on {@code s} and says whether the answer is the test side's 200. */
    static boolean answered(Socket s) throws IOException {
        send(s, "GET /api/v1/info HTTP/1.1\r\nHost: x\r\n\r\n");
        return readToClose(s).startsWith("HTTP/1.1 200 OK");
    }

    @Test
    void aNewConnectionAtTheHandshakeCapEvictsTheOldestConnectionStillInItsHandshake() throws Exception {
        int port = start(ServerLimits.defaults().withHandshakes(2, 64));
        StreamServer server = servers.get(0);
        List<Socket> idle = connectInOrder(server, port, 2);
        // both have started a request, neither whole: none is silent, so the one that spoke first goes,
        // and each gets its protocol's refusal
        send(idle.get(0), "GET /api/v1/info HTTP/1.1\r\n");
        waitFor(() -> server.connectionsSpeaking(ConnectionGuard.Protocol.HTTP) == 1, "the HTTP one known");
        send(idle.get(1), "STREAM key=" + KEY);
        waitFor(() -> server.connectionsSpeaking(ConnectionGuard.Protocol.STREAM) == 1, "the STREAM one known");

        Socket poll = connect(port);
        assertTrue(answered(poll), "the new connection is answered");
        String evicted = readToClose(idle.get(0));
        assertTrue(evicted.startsWith("HTTP/1.1 503 Service Unavailable\r\n"), evicted);
        assertTrue(evicted.endsWith(HandshakeReplies.BUSY), evicted);

        // the cap full again with one that spoke later: the next to go is the one that started a STREAM
        Socket late = connect(port);
        send(late, "GET /api/v1/info HTTP/1.1\r\n");
        waitFor(() -> server.connectionsSpeaking(ConnectionGuard.Protocol.HTTP) == 1
                && server.gate().handshaking() == 2, "the later HTTP one known, the first one gone");
        Socket stream = connect(port);
        send(stream, streamRequest(UUID.randomUUID().toString()));
        byte[] buf = new byte[256];
        int n = stream.getInputStream().read(buf);
        assertTrue(n > 0 && new String(buf, 0, n, StandardCharsets.US_ASCII).startsWith(HandshakeReplies.PROMPT_VERSION),
                "the new stream is accepted");
        assertEquals(HandshakeReplies.BUSY, readToClose(idle.get(1)));

        // the one that spoke later was not the first to have spoken: still open, its request answered
        send(late, "Host: x\r\n\r\n");
        assertTrue(readToClose(late).startsWith("HTTP/1.1 200 OK"), "the later one is still open");
        assertEquals(2, server.gate().evictions());
    }

    /**
     * A burst of more connections than the cap: each new one takes the place of a connection that has
     * sent nothing, never of one whose request has begun to arrive while there is a silent one left.
     */
    @Test
    void aBurstPastTheHandshakeCapEvictsSilentConnectionsBeforeOneThatHasSpoken() throws Exception {
        int port = start(ServerLimits.defaults().withHandshakes(3, 64));
        StreamServer server = servers.get(0);
        Socket spoken = connectInOrder(server, port, 1).get(0);
        send(spoken, "GET /api/v1/info HTTP/1.1\r\n");
        waitFor(() -> server.connectionsSpeaking(ConnectionGuard.Protocol.HTTP) == 1, "its request begun");
        List<Socket> silent = connectInOrder(server, port, 2);
        List<Socket> burst = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            burst.add(connect(port));
            long evictions = i + 1;
            waitFor(() -> server.gate().evictions() == evictions, "eviction " + evictions);
        }
        // the oldest silent ones went, the first three of the burst among them; the one that spoke stays
        assertEquals("", readToClose(silent.get(0)));
        assertEquals("", readToClose(silent.get(1)));
        for (int i = 0; i < 3; i++) {
            assertEquals("", readToClose(burst.get(i)), "burst connection " + i);
        }
        send(spoken, "Host: x\r\n\r\n");
        String answer = readToClose(spoken);
        assertTrue(answer.startsWith("HTTP/1.1 200 OK"), "the connection that had spoken is answered: " + answer);
        assertTrue(answered(burst.get(3)), "the newest are still open");
        assertTrue(answered(burst.get(4)), "the newest are still open");
        assertEquals(5, server.gate().evictions());
    }

    @Test
    void aConnectionThatSaidNothingIsClosedWithoutAReplyWhenEvicted() throws Exception {
        int port = start(ServerLimits.defaults().withHandshakes(2, 64));
        StreamServer server = servers.get(0);
        List<Socket> idle = connectInOrder(server, port, 2);
        Socket poll = connect(port);
        assertTrue(answered(poll), "the new connection is answered");
        assertEquals("", readToClose(idle.get(0)));
        assertTrue(answered(idle.get(1)), "only the oldest was evicted");
        assertEquals(1, server.gate().evictions());
    }

    @Test
    void anAcceptedStreamIsNeverEvicted() throws Exception {
        int port = start(ServerLimits.defaults().withHandshakes(1, 64));
        StreamServer server = servers.get(0);
        Socket accepted = connect(port);
        send(accepted, streamRequest(UUID.randomUUID().toString()));
        byte[] buf = new byte[256];
        assertTrue(accepted.getInputStream().read(buf) > 0);
        waitFor(() -> server.gate().handshaking() == 0 && server.gate().open() == 1, "the stream accepted");
        Socket idle = connectInOrder(server, port, 1).get(0);
        for (int i = 0; i < 3; i++) {
            assertTrue(answered(connect(port)), "poll " + i + " answered");
        }
        assertEquals("", readToClose(idle));
        // the accepted stream was never a candidate: the server still holds it open
        waitFor(() -> server.gate().open() == 1 && server.gate().handshaking() == 0, "only the stream left");
        assertEquals(1, server.gate().evictions(), "the idle one, then nothing: the polls were done when the next came");
    }

    static WebAccessRules rules(String connections, String streaming) {
        Map<WebPermission, SimplePattern> m = new EnumMap<>(WebPermission.class);
        for (WebPermission p : WebPermission.values()) {
            m.put(p, SimplePattern.parse("*"));
        }
        m.put(WebPermission.STREAMING, SimplePattern.parse(streaming));
        return new WebAccessRules(SimplePattern.parse(connections), m);
    }

    @Test
    void allowConnectionsFromClosesOthersAtTheAccept() throws Exception {
        int port = start(ServerLimits.defaults(), rules("!127.0.0.1 *", "*"),
                Listener.of(new InetSocketAddress("127.0.0.1", 0)));
        Socket s = connect(port);
        assertEquals("", readToClose(s));
        assertEquals(0, servers.get(0).gate().open());
    }

    @Test
    void allowStreamingFromRefusesAStreamWithNetdatasForbiddenAnswer() throws Exception {
        int port = start(ServerLimits.defaults(), rules("*", "10.*"), Listener.of(new InetSocketAddress("127.0.0.1", 0)));
        Socket s = connect(port);
        send(s, streamRequest(UUID.randomUUID().toString()));
        String reply = readToClose(s);
        assertTrue(reply.startsWith("HTTP/1.1 403 Forbidden\r\n"), reply);
        assertTrue(reply.endsWith(PortUnificationHandler.FORBIDDEN_TEXT), reply);
        // HTTP is still served to that address
        Socket http = connect(port);
        send(http, "GET / HTTP/1.1\r\n\r\n");
        assertTrue(readToClose(http).startsWith("HTTP/1.1 200 OK"));
    }

    @Test
    void aListenerWithoutTheStreamingModeRefusesStreams() throws Exception {
        int port = start(ServerLimits.defaults(), WebAccessRules.allowAll(),
                new Listener(new InetSocketAddress("127.0.0.1", 0), EnumSet.of(WebPermission.DASHBOARD),
                        TlsMode.DEFAULT));
        Socket s = connect(port);
        send(s, streamRequest(UUID.randomUUID().toString()));
        assertTrue(readToClose(s).endsWith(PortUnificationHandler.FORBIDDEN_TEXT));
    }

    @Test
    void localhostInAPatternMeansTheLoopbackAddresses() throws Exception {
        assertTrue(WebAccessRules.matches(SimplePattern.parse("localhost"), java.net.InetAddress.getByName("127.0.0.1")));
        assertTrue(WebAccessRules.matches(SimplePattern.parse("localhost"), java.net.InetAddress.getByName("::1")));
        assertTrue(!WebAccessRules.matches(SimplePattern.parse("localhost"), java.net.InetAddress.getByName("10.1.2.3")));
        assertEquals(null, WebAccessRules.potentialName(WebAccessRules.DEFAULT_NETDATA_CONF));
        assertEquals("box.example", WebAccessRules.potentialName("10.* box.example"));
    }

    @Test
    void anAcceptedStreamThatSendsNothingForTheReceiveTimeoutIsClosed() throws Exception {
        rc = new ReceiverContext(rc.engine(), rc.authorizer(), rc.registry(), rc.limits(), rc.stats(), rc.nowMicros(),
                1, null);
        int port = start(ServerLimits.defaults());
        Socket s = connect(port);
        send(s, streamRequest(UUID.randomUUID().toString()));
        String all = readToClose(s);
        assertTrue(all.startsWith(HandshakeReplies.PROMPT_VERSION), all);
        waitFor(() -> rc.registry().connected() == 0, "the stream unregistered");
    }

    /** A self-signed certificate made with openssl, or null (the test is then skipped) when there is no openssl. */
    io.netty.handler.ssl.SslContext selfSigned() throws Exception {
        Path cert = dir.resolve("cert.pem");
        Path key = dir.resolve("key.pem");
        Process p;
        try {
            p = new ProcessBuilder("openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key.toString(),
                    "-out", cert.toString(), "-days", "1", "-subj", "/CN=localhost")
                    .redirectErrorStream(true).redirectOutput(dir.resolve("openssl.log").toFile()).start();
        } catch (IOException e) {
            System.out.println("SKIPPED: openssl is not installed; it makes the test's certificate");
            org.junit.jupiter.api.Assumptions.abort("openssl is not installed");
            return null;
        }
        assertTrue(p.waitFor(60, java.util.concurrent.TimeUnit.SECONDS) && p.exitValue() == 0, "openssl failed");
        return TlsContexts.server(cert, key);
    }

    static Socket tlsConnect(int port) throws Exception {
        javax.net.ssl.SSLContext ctx = javax.net.ssl.SSLContext.getInstance("TLS");
        ctx.init(null, new javax.net.ssl.TrustManager[]{new javax.net.ssl.X509TrustManager() {
            @Override
            public void checkClientTrusted(java.security.cert.X509Certificate[] chain, String authType) {
            }

            @Override
            public void checkServerTrusted(java.security.cert.X509Certificate[] chain, String authType) {
                // the test's self-signed certificate
            }

            @Override
            public java.security.cert.X509Certificate[] getAcceptedIssuers() {
                return new java.security.cert.X509Certificate[0];
            }
        }}, null);
        Socket s = ctx.getSocketFactory().createSocket("127.0.0.1", port);
        s.setSoTimeout(WAIT_MILLIS);
        return s;
    }

    @Test
    void aForcedTlsListenerRefusesAPlainStreamAndAcceptsOneOverTls() throws Exception {
        io.netty.handler.ssl.SslContext tls = selfSigned();
        StreamServer server = new StreamServer(rc, tls, OK_HTTP, 2, ServerLimits.defaults(), WebAccessRules.allowAll());
        servers.add(server);
        int port = server.bind(new Listener(new InetSocketAddress("127.0.0.1", 0), WebPermission.all(), TlsMode.FORCE))
                .getPort();
        Socket plain = connect(port);
        send(plain, streamRequest(UUID.randomUUID().toString()));
        assertEquals(HandshakeReplies.NOT_PERMITTED, readToClose(plain));

        Socket overTls = tlsConnect(port);
        sockets.add(overTls);
        send(overTls, streamRequest(UUID.randomUUID().toString()));
        byte[] buf = new byte[256];
        int n = overTls.getInputStream().read(buf);
        assertTrue(new String(buf, 0, n, StandardCharsets.US_ASCII).startsWith(HandshakeReplies.PROMPT_VERSION));
    }

    @Test
    void forcingTlsWithoutACertificateIsRefusedAtBind() {
        StreamServer server = new StreamServer(rc, null, OK_HTTP, 1, ServerLimits.defaults(), WebAccessRules.allowAll());
        servers.add(server);
        IOException e = org.junit.jupiter.api.Assertions.assertThrows(IOException.class, () -> server.bind(
                new Listener(new InetSocketAddress("127.0.0.1", 0), WebPermission.all(), TlsMode.FORCE)));
        assertTrue(e.getMessage().contains("^SSL=force"), e.getMessage());
    }

    @Test
    void anHttpRequestNotYetWholeCountsAsAHandshakeInProgress() throws Exception {
        int port = start(ServerLimits.defaults().withHandshakes(100, 2));
        StreamServer server = servers.get(0);
        for (int i = 0; i < 2; i++) {
            send(connect(port), "GET /api/v1/info HTTP/1.1\r\nHost: x\r\n");
        }
        waitFor(() -> server.gate().handshaking() == 2, "2 handshakes");
        Socket third = connect(port);
        send(third, "GET / HTTP/1.1\r\n\r\n");
        assertTrue(readToClose(third).startsWith("HTTP/1.1 503 Service Unavailable"));
        // once a request is whole, its connection is no longer a handshake
        send(sockets.get(0), "\r\n");
        assertTrue(readToClose(sockets.get(0)).startsWith("HTTP/1.1 200 OK"));
        waitFor(() -> server.gate().handshaking() == 1, "1 handshake left");
    }

    @Test
    void refusalsRepeatedByOneAddressAreLoggedOncePerInterval() throws Exception {
        ch.qos.logback.classic.Logger guardLog =
                (ch.qos.logback.classic.Logger) org.slf4j.LoggerFactory.getLogger("io.strata.streaming");
        ch.qos.logback.core.read.ListAppender<ch.qos.logback.classic.spi.ILoggingEvent> lines =
                new ch.qos.logback.core.read.ListAppender<>();
        lines.start();
        guardLog.addAppender(lines);
        try {
            int port = start(ServerLimits.defaults());
            for (int i = 0; i < 20; i++) {
                Socket s = connect(port);
                // a key the parent does not know, a new GUID and hostname each time
                send(s, streamRequest(UUID.randomUUID().toString()).replace(KEY, "99999999-2222-3333-4444-555555555555")
                        .replace("hostname=h", "hostname=h" + i));
                assertEquals(HandshakeReplies.NOT_PERMITTED, readToClose(s));
            }
            List<String> refusals = new ArrayList<>();
            synchronized (lines.list) {
                for (var e : lines.list) {
                    if (e.getFormattedMessage().contains("refused stream of host")) {
                        refusals.add(e.getFormattedMessage());
                    }
                }
            }
            assertEquals(1, refusals.size(), refusals.toString());
            assertTrue(refusals.get(0).contains("99999999-****") && !refusals.get(0).contains("99999999-2222"),
                    refusals.get(0));
        } finally {
            guardLog.detachAppender(lines);
        }
    }
}
