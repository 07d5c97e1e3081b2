package io.strata.streaming.sender;

import org.junit.jupiter.api.Test;

import java.io.InputStream;
import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The stream_info answer judged as Netdata 2.9.0's child judges it. */
class StreamInfoReplyTest {

    /** A 2.9.0 parent's answer for a child it holds (the fields and their order of stream_info_to_json_v1). */
    static final String HOLDS = "{\"version\":1,\"status\":200,\"host_id\":\"8a795b0c-2311-11f0-8f4b-fa163e7c8b6a\","
            + "\"nodes\":2,\"receivers\":1,\"nonce\":3471207465,\"db_status\":\"online\",\"db_liveness\":\"live\","
            + "\"ingest_type\":\"child\",\"ingest_status\":\"online\",\"first_time_s\":1795262837,"
            + "\"last_time_s\":1795263113}";
    static final String UNKNOWN = "{\"version\":1,\"status\":404,\"host_id\":\"8a795b0c-2311-11f0-8f4b-fa163e7c8b6a\","
            + "\"nodes\":1,\"receivers\":0,\"nonce\":12}";

    static byte[] http(int code, String body) {
        byte[] b = body.getBytes(StandardCharsets.UTF_8);
        return ("HTTP/1.1 " + code + " OK\r\nConnection: close\r\nContent-Type: application/json\r\n"
                + "Content-Length: " + b.length + "\r\n\r\n" + body).getBytes(StandardCharsets.UTF_8);
    }

    private static StreamInfoReply.Probe parse(byte[] b) {
        return StreamInfoReply.parse(b, b.length);
    }

    @Test
    void aParentHoldingTheHostGivesItsNewestSecond() {
        StreamInfoReply.Probe p = parse(http(200, HOLDS));
        assertEquals(StreamInfoReply.Kind.HOLDS_HOST, p.kind(), p.detail());
        assertEquals(1795263113L, p.lastTimeS());
        assertEquals(1795262837L, p.info().firstTimeS());
        assertEquals("child", p.info().ingestType());
        assertEquals("online", p.info().ingestStatus());
        assertEquals("live", p.info().dbLiveness());
        assertEquals(3471207465L, p.info().nonce());
        assertEquals(2, p.info().nodes());
    }

    @Test
    void status404IsAnUnknownHostWithNoFreshness() {
        StreamInfoReply.Probe p = parse(http(404, UNKNOWN));
        assertEquals(StreamInfoReply.Kind.HOST_UNKNOWN, p.kind());
        assertEquals(404, p.info().status());
        assertEquals(0, p.lastTimeS());
        assertTrue(p.detail().contains("status reported (404) is not OK (200)"), p.detail());
    }

    @Test
    void theStatusLineIsNotLookedAtOnlyTheBodysStatus() {
        // as the C child: a 404 status line with a body saying 200 is a parent holding the host
        assertEquals(StreamInfoReply.Kind.HOLDS_HOST, parse(http(404, HOLDS)).kind());
    }

    @Test
    void aNetdata137ParentHasNoStreamInfo() throws Exception {
        byte[] answer;
        // what 1.37.1 answers for an API version it does not have (recorded for /api/v2/info; the
        // same code path answers /api/v3/stream_info with "v3")
        try (InputStream in = getClass().getResourceAsStream("/vectors/stream-info/netdata-1.37.1-api-v2-info.http")) {
            assertNotNull(in);
            answer = in.readAllBytes();
        }
        assertTrue(StreamInfoReply.complete(answer, answer.length));
        StreamInfoReply.Probe p = parse(answer);
        assertEquals(StreamInfoReply.Kind.NO_STREAM_INFO, p.kind());
        assertTrue(p.detail().contains("not JSON"), p.detail());
        assertEquals(0, p.lastTimeS());
    }

    @Test
    void completeWaitsForTheHeadersAndTheWholeBody() {
        byte[] full = http(200, HOLDS);
        int headers = new String(full, StandardCharsets.UTF_8).indexOf("\r\n\r\n") + 4;
        assertFalse(StreamInfoReply.complete(full, headers - 1));
        assertFalse(StreamInfoReply.complete(full, headers + 10));
        assertFalse(StreamInfoReply.complete(full, full.length - 1));
        assertTrue(StreamInfoReply.complete(full, full.length));
        StreamInfoReply.Probe cut = StreamInfoReply.parse(full, full.length - 1);
        assertEquals(StreamInfoReply.Kind.NO_STREAM_INFO, cut.kind());
        assertTrue(cut.detail().contains("ended after"), cut.detail());
    }

    @Test
    void withoutContentLengthThereIsNoStreamInfo() {
        byte[] b = ("HTTP/1.1 200 OK\r\nConnection: close\r\n\r\n" + HOLDS).getBytes(StandardCharsets.UTF_8);
        assertFalse(StreamInfoReply.complete(b, b.length));
        StreamInfoReply.Probe p = parse(b);
        assertEquals(StreamInfoReply.Kind.NO_STREAM_INFO, p.kind());
        assertEquals("the answer does not have a Content-Length", p.detail());
        // 2.x searches for exactly "Content-Length: "
        byte[] lower = ("HTTP/1.1 200 OK\r\ncontent-length: " + HOLDS.length() + "\r\n\r\n" + HOLDS)
                .getBytes(StandardCharsets.UTF_8);
        assertEquals(StreamInfoReply.Kind.NO_STREAM_INFO, parse(lower).kind());
    }

    @Test
    void aMissingOrMistypedFieldIsNamed() {
        StreamInfoReply.Probe p = parse(http(200, HOLDS.replace("\"last_time_s\":1795263113", "\"x\":1")));
        assertEquals(StreamInfoReply.Kind.NO_STREAM_INFO, p.kind());
        assertTrue(p.detail().startsWith("field 'last_time_s' is missing"), p.detail());
        p = parse(http(200, HOLDS.replace("\"nodes\":2", "\"nodes\":\"2\"")));
        assertTrue(p.detail().startsWith("field 'nodes' is not an integer"), p.detail());
    }

    @Test
    void nothingReceivedIsNoAnswer() {
        assertEquals(StreamInfoReply.Kind.NO_ANSWER, StreamInfoReply.parse(new byte[0], 0).kind());
    }

    @Test
    void brokenJsonIsNoStreamInfoNeverAnException() {
        for (String body : new String[]{"{", "{\"a\":}", "{\"a\":1,}", "[1,2]", "{\"a\":\"\\u12\"}", "{} x",
                "{\"version\":99999999999999999999}"}) {
            StreamInfoReply.Probe p = parse(http(200, body));
            assertEquals(StreamInfoReply.Kind.NO_STREAM_INFO, p.kind(), body + " -> " + p.detail());
        }
        // nested members, escapes, fractions and booleans are read past
        String extra = HOLDS.substring(0, HOLDS.length() - 1) + ",\"more\":{\"a\":[1,{\"b\":\"}\"}]},\"f\":1.5e3,"
                + "\"t\":true,\"n\":null,\"s\":\"a\\\"b\\u0041\"}";
        assertEquals(StreamInfoReply.Kind.HOLDS_HOST, parse(http(200, extra)).kind());
    }

    @Test
    void theRequestIsTheOneA2xChildSends() {
        String r = new String(StreamInfoReply.request("5b8185c0-e5a4-11f1-9d33-02fc00000001", "127.0.0.1:19999"),
                StandardCharsets.US_ASCII);
        assertTrue(r.startsWith("GET /api/v3/stream_info?machine_guid=5b8185c0-e5a4-11f1-9d33-02fc00000001 HTTP/1.1\r\n"
                + "Host: 127.0.0.1:19999\r\n"), r);
        assertTrue(r.contains("Accept-Encoding: identity\r\n"), r);
        assertTrue(r.endsWith("Connection: close\r\n\r\n"), r);
    }
}
