package io.strata.query;

import io.strata.testsupport.GuardPerClass;
import com.fasterxml.jackson.databind.JsonNode;

import java.io.IOException;
import java.io.InputStream;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Every API request the React dashboard made while loading against Netdata (same origin, and
 * from another origin with its CORS preflights), replayed: each must get 200 and the content
 * type Netdata gave it, cross-origin ones with their Origin echoed.
 */
@GuardPerClass("the HTTP client keeps its connection to the server from one test to the next")
class DashboardReplayTest {

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

    @ParameterizedTest
    @ValueSource(strings = {"react-same-origin.jsonl", "react-cross-origin-api.jsonl"})
    void everyApiRequestOfTheDashboardIsAnswered(String log) throws Exception {
        int replayed = 0;
        try (InputStream in = getClass().getResourceAsStream("/vectors/netdata-1.37.1-api/dashboard-requests/" + log)) {
            for (String line : new String(in.readAllBytes(), StandardCharsets.UTF_8).split("\n")) {
                JsonNode req = Vectors.JSON.readTree(line);
                String path = req.get("path").asText();
                if (!path.startsWith("/api/")) {
                    continue;
                }
                String origin = req.get("origin").isNull() ? null : req.get("origin").asText();
                String[] headers = origin == null ? new String[0] : new String[] {"Origin", origin};
                HttpResponse<String> r = server.request(req.get("m").asText(), path, headers);
                assertEquals(req.get("status").asInt(), r.statusCode(), path + ": " + r.body());
                String ctype = req.get("ctype").asText();
                assertEquals(ctype, r.headers().firstValue("content-type").orElse(null), path);
                if (origin != null) {
                    assertEquals(origin, r.headers().firstValue("access-control-allow-origin").orElse(null), path);
                }
                if (ctype.startsWith("application/json")) {
                    Vectors.JSON.readTree(r.body());
                }
                replayed++;
            }
        }
        assertTrue(replayed > 200, "replayed " + replayed);
    }
}
