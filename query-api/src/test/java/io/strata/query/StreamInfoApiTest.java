package io.strata.query;

import io.strata.testsupport.GuardPerClass;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.strata.query.http.ApiServices;
import io.strata.query.http.StreamIngest;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.UUID;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code /api/v3/stream_info}, as a Netdata 2.x child reads it before connecting: the fields of a
 * 2.x parent's answer in its order, 404 for a host this parent does not hold, and a
 * {@code Content-Length: } header spelled exactly so (the child finds the body by that string).
 */
@GuardPerClass("the HTTP client keeps its connection to the server from one test to the next")
class StreamInfoApiTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    static Path dir;
    static RecordedParent parent;
    static ApiContext api;
    static TestServer server;

    @BeforeAll
    static void start() throws Exception {
        parent = new RecordedParent(dir.resolve("db"));
        api = new ApiContext(parent.engine, RecordedParent.PARENT, "ndq-parent", dir.resolve("web"), parent.clock,
                ApiContext.defaultExecutor(1));
        server = new TestServer(api);
    }

    @AfterAll
    static void stop() throws IOException {
        server.close();
        api.close();
        parent.close();
    }

    @AfterEach
    void noReceivers() {
        ApiServices.of(api).streamIngest(StreamIngest.NONE);
    }

    private static List<String> fieldNames(JsonNode n) {
        List<String> names = new ArrayList<>();
        for (Iterator<String> it = n.fieldNames(); it.hasNext(); ) {
            names.add(it.next());
        }
        return names;
    }

    @Test
    void aChildThisParentHoldsIsAnsweredWithItsRetentionAndIngest() throws Exception {
        HttpResponse<String> r = server.get("/api/v3/stream_info?machine_guid=" + RecordedParent.CHILD);
        assertEquals(200, r.statusCode());
        assertTrue(r.headers().firstValue("content-type").orElse("").startsWith("application/json"));
        JsonNode j = JSON.readTree(r.body());
        assertEquals(List.of("version", "status", "host_id", "nodes", "receivers", "nonce", "db_status",
                "db_liveness", "ingest_type", "ingest_status", "first_time_s", "last_time_s"), fieldNames(j));
        assertEquals(1, j.get("version").asInt());
        assertEquals(200, j.get("status").asInt());
        assertEquals(RecordedParent.PARENT.toString(), j.get("host_id").asText());
        assertEquals(2, j.get("nodes").asInt());
        assertEquals(0, j.get("receivers").asInt());
        assertTrue(j.get("nonce").asLong() >= 0 && j.get("nonce").asLong() < (1L << 32));
        assertEquals("online", j.get("db_status").asText());
        // known, but not streaming now
        assertEquals("stale", j.get("db_liveness").asText());
        assertEquals("child", j.get("ingest_type").asText());
        assertEquals("offline", j.get("ingest_status").asText());
        assertEquals(RecordedParent.CHILD_LAST, j.get("last_time_s").asLong());
        long first = j.get("first_time_s").asLong();
        assertTrue(first > 0 && first < RecordedParent.CHILD_LAST, "first_time_s " + first);

        ApiServices.of(api).streamIngest(new StreamIngest() {
            @Override
            public int connectedReceivers() {
                return 1;
            }

            @Override
            public boolean receiving(UUID host) {
                return host.equals(RecordedParent.CHILD);
            }
        });
        j = JSON.readTree(server.get("/api/v3/stream_info?machine_guid=" + RecordedParent.CHILD).body());
        assertEquals(1, j.get("receivers").asInt());
        assertEquals("live", j.get("db_liveness").asText());
        assertEquals("online", j.get("ingest_status").asText());
    }

    @Test
    void theParentsOwnHostIsLocalhostWhichAChildBans() throws Exception {
        JsonNode j = JSON.readTree(server.get("/api/v3/stream_info?machine_guid=" + RecordedParent.PARENT).body());
        assertEquals(200, j.get("status").asInt());
        assertEquals("localhost", j.get("ingest_type").asText());
        assertEquals("online", j.get("ingest_status").asText());
        assertEquals(RecordedParent.LAST, j.get("last_time_s").asLong());
    }

    @Test
    void anUnknownOrMissingGuidIs404WithTheCommonFieldsOnly() throws Exception {
        for (String q : new String[]{"?machine_guid=" + UUID.randomUUID(), "?machine_guid=not-a-guid", ""}) {
            HttpResponse<String> r = server.get("/api/v3/stream_info" + q);
            assertEquals(404, r.statusCode(), q);
            JsonNode j = JSON.readTree(r.body());
            assertEquals(List.of("version", "status", "host_id", "nodes", "receivers", "nonce"), fieldNames(j), q);
            assertEquals(404, j.get("status").asInt());
            assertEquals(RecordedParent.PARENT.toString(), j.get("host_id").asText());
        }
    }

    /** Netdata's child looks for exactly {@code "Content-Length: "} in the answer's bytes. */
    @Test
    void contentLengthIsSpelledAsNetdataSearchesForIt() throws Exception {
        for (UUID guid : new UUID[]{RecordedParent.CHILD, UUID.randomUUID()}) {
            String raw;
            try (Socket s = new Socket(InetAddress.getLoopbackAddress(), server.port())) {
                s.setSoTimeout(10_000);
                OutputStream out = s.getOutputStream();
                out.write(("GET /api/v3/stream_info?machine_guid=" + guid + " HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                        + "Connection: close\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
                out.flush();
                InputStream in = s.getInputStream();
                ByteArrayOutputStream all = new ByteArrayOutputStream();
                in.transferTo(all);
                raw = all.toString(StandardCharsets.UTF_8);
            }
            int headerEnd = raw.indexOf("\r\n\r\n");
            assertTrue(headerEnd > 0, raw);
            String body = raw.substring(headerEnd + 4);
            int at = raw.indexOf("\r\nContent-Length: ");
            assertTrue(at > 0 && at < headerEnd, "no 'Content-Length: ' header: " + raw.substring(0, headerEnd));
            int valueStart = at + "\r\nContent-Length: ".length();
            long length = Long.parseLong(raw.substring(valueStart, raw.indexOf("\r\n", valueStart)));
            assertEquals(body.getBytes(StandardCharsets.UTF_8).length, length);
            assertTrue(body.startsWith("{\"version\":1,"), body);
        }
    }
}
