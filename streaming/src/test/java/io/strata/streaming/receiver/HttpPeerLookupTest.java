package io.strata.streaming.receiver;

import com.sun.net.httpserver.HttpServer;
import org.junit.jupiter.api.Test;

import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The peers' newest second of a host, read from their {@code /host/<guid>/api/v1/charts}: the largest
 * {@code last_entry} of the peers that know the host; a peer that does not (404) or a {@code :SSL}
 * one (not asked) counts as holding nothing; a peer that is down makes the answer incomplete.
 */
class HttpPeerLookupTest {

    static final String GUID = "5b8185c0-e5a4-11f1-9d33-02fc00000077";

    private static HttpServer peer(int status, String body) throws Exception {
        HttpServer s = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        s.createContext("/", x -> {
            byte[] b = body.getBytes(StandardCharsets.UTF_8);
            String expected = "/host/" + GUID + "/api/v1/charts";
            int code = x.getRequestURI().getPath().equals(expected) ? status : 400;
            x.sendResponseHeaders(code, b.length);
            try (OutputStream out = x.getResponseBody()) {
                out.write(b);
            }
        });
        s.start();
        return s;
    }

    @Test
    void theNewestLastEntryOfThePeersThatKnowTheHost() throws Exception {
        HttpServer knows = peer(200, "{\"charts\": {\"a\": {\"first_entry\": 1795000000,\n\t\t\t\"last_entry\": 1795000100},"
                + " \"b\": {\"last_entry\": 1795000160}}}");
        HttpServer older = peer(200, "{\"charts\": {\"a\": {\"last_entry\": 1795000050}}}");
        HttpServer unknown = peer(404, "Host is not found.");
        int down;
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            down = s.getLocalPort();
        }
        try (HttpPeerLookup lookup = new HttpPeerLookup(Duration.ofSeconds(2), 19999)) {
            String destinations = "127.0.0.1:" + unknown.getAddress().getPort() + " 127.0.0.1:" + down
                    + " 127.0.0.1:" + knows.getAddress().getPort() + ":SSL"
                    + " 127.0.0.1:" + older.getAddress().getPort();
            assertEquals(new PeerLookup.Answer(1795000050L, false),
                    lookup.newestSecond(destinations, GUID).get(10, TimeUnit.SECONDS),
                    "the :SSL peer is not asked; the peer that is down did not answer");
            destinations += " 127.0.0.1:" + knows.getAddress().getPort();
            assertEquals(new PeerLookup.Answer(1795000160L, false),
                    lookup.newestSecond(destinations, GUID).get(10, TimeUnit.SECONDS));
            String answering = "127.0.0.1:" + unknown.getAddress().getPort() + " 127.0.0.1:"
                    + older.getAddress().getPort() + " 127.0.0.1:" + knows.getAddress().getPort() + ":SSL";
            assertEquals(PeerLookup.Answer.held(1795000050L),
                    lookup.newestSecond(answering, GUID).get(10, TimeUnit.SECONDS),
                    "every peer asked answered (a 404 holds nothing; the :SSL one is not asked)");
            assertEquals(PeerLookup.Answer.NOBODY, lookup.newestSecond("127.0.0.1:" + unknown.getAddress().getPort(),
                    GUID).get(10, TimeUnit.SECONDS));
            assertEquals(PeerLookup.Answer.NO_ANSWER, lookup.newestSecond("127.0.0.1:" + down, GUID)
                    .get(10, TimeUnit.SECONDS), "a peer that is down holds nothing it said, and may hold more");
            assertEquals(PeerLookup.Answer.NOBODY, lookup.newestSecond("", GUID).get(10, TimeUnit.SECONDS));
        } finally {
            knows.stop(0);
            older.stop(0);
            unknown.stop(0);
        }
    }

    @Test
    void noConnectionToAPeerStaysOpenAfterItsAnswer() throws Exception {
        HttpServer knows = peer(200, "{\"charts\": {\"a\": {\"last_entry\": 1795000100}}}");
        HttpServer unknown = peer(404, "Host is not found.");
        try (HttpPeerLookup lookup = new HttpPeerLookup(Duration.ofSeconds(2), 19999)) {
            for (HttpServer p : List.of(knows, unknown)) {
                int port = p.getAddress().getPort();
                lookup.newestSecond("127.0.0.1:" + port, GUID).get(10, TimeUnit.SECONDS);
                // the answer is in: this side's end of the connection is closed already (the peer's
                // end may close a moment later, on its own thread)
                assertEquals(List.of(), openConnectionsTo(port), "connections to the peer on " + port);
            }
        } finally {
            knows.stop(0);
            unknown.stop(0);
        }
    }

    @Test
    void aRefusalWhoseTextComesAfterItsHeadersLeavesNoConnectionOpen() throws Exception {
        // the peer's 404 headers, then its text a moment later: an answer that is not read to its
        // end is drained by the JDK's keep-alive cleaner and its socket kept for reuse
        CountDownLatch asked = new CountDownLatch(1);
        HttpServer late = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        late.createContext("/", x -> {
            byte[] b = "Host is not found.".getBytes(StandardCharsets.UTF_8);
            x.sendResponseHeaders(404, b.length);
            try {
                asked.await(300, TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            try (OutputStream out = x.getResponseBody()) {
                out.write(b);
            }
        });
        late.start();
        try (HttpPeerLookup lookup = new HttpPeerLookup(Duration.ofSeconds(5), 19999)) {
            int port = late.getAddress().getPort();
            assertEquals(PeerLookup.Answer.NOBODY, lookup.newestSecond("127.0.0.1:" + port, GUID).get(10, TimeUnit.SECONDS));
            assertEquals(List.of(), openConnectionsTo(port), "connections to the peer on " + port);
        } finally {
            late.stop(0);
        }
    }

    /** Lines of /proc/self/net/tcp{,6} of connections to {@code port} still open at this end (established or half-closed). */
    private static List<String> openConnectionsTo(int port) throws Exception {
        // 127.0.0.1:port: the tables list every socket of the machine's namespace, and other
        // processes' connections to the same port number on another address are none of the test's
        String remote = String.format("0100007F:%04X", port);
        List<String> open = new ArrayList<>();
        // a JVM socket is an IPv6 one even to 127.0.0.1 (tcp6, as ::ffff:127.0.0.1)
        for (String table : List.of("/proc/self/net/tcp", "/proc/self/net/tcp6")) {
            for (String line : Files.readAllLines(Path.of(table))) {
                String[] f = line.trim().split("\\s+");
                // 01 ESTABLISHED, 08 CLOSE_WAIT: a descriptor still open here
                if (f.length > 3 && f[2].endsWith(remote) && (f[3].equals("01") || f[3].equals("08"))) {
                    open.add(line.trim());
                }
            }
        }
        return open;
    }
}
