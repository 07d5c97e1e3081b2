package io.strata.streaming.receiver;

import com.sun.net.httpserver.HttpServer;
import org.junit.jupiter.api.Test;

import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The peers' newest second of a host, read from their {@code /host/<guid>/api/v1/charts}: the largest
 * {@code last_entry} of the peers that know the host; a peer that does not (404), that is down, or
 * a {@code :SSL} one counts as holding nothing.
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
            assertEquals(1795000050L, lookup.newestSecond(destinations, GUID).get(10, TimeUnit.SECONDS),
                    "the :SSL peer is not asked");
            destinations += " 127.0.0.1:" + knows.getAddress().getPort();
            assertEquals(1795000160L, lookup.newestSecond(destinations, GUID).get(10, TimeUnit.SECONDS));
            assertEquals(-1L, lookup.newestSecond("127.0.0.1:" + unknown.getAddress().getPort(), GUID)
                    .get(10, TimeUnit.SECONDS));
            assertEquals(-1L, lookup.newestSecond("", GUID).get(10, TimeUnit.SECONDS));
        } finally {
            knows.stop(0);
            older.stop(0);
            unknown.stop(0);
        }
    }
}
