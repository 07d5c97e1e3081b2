package io.strata.streaming.handshake;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

class StreamRequestTest {

    private static StreamRequest parse(String text) throws StreamRequestException {
        byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
        return StreamRequest.parse(bytes, bytes.length);
    }

    private static String request(String query) {
        return "STREAM " + query + " HTTP/1.1\r\nUser-Agent: netdata/v1.37.1\r\nAccept: */*\r\n\r\n";
    }

    @Test
    void parsesTheCapturedRequestOfA1371Child() throws Exception {
        byte[] bytes = Vectors.read(Vectors.PLAIN + "handshake_request.txt");
        assertEquals(1395, bytes.length);
        StreamRequest r = StreamRequest.parse(bytes, bytes.length);
        assertEquals("11111111-2222-3333-4444-555555555555", r.key());
        assertEquals("ndchild", r.hostname());
        assertEquals("ndchild", r.registryHostname());
        assertEquals("5b8185c0-e5a4-11f1-9d33-02fc00000001", r.machineGuid());
        assertEquals(1, r.updateEvery());
        assertEquals("linux", r.os());
        assertEquals("Etc/UTC", r.timezone());
        assertEquals("UTC", r.abbrevTimezone());
        assertEquals(0, r.utcOffset());
        assertEquals(1, r.hops());
        assertEquals(0, r.mlCapable());
        assertEquals(0, r.mlEnabled());
        assertEquals(1, r.mcVersion());
        assertEquals("", r.tags(), "tags= is empty, so skipped");
        assertEquals(15352, r.ver());
        assertEquals(15352, r.offeredVersion());
        assertTrue(r.protocolVersion1_1());
        assertEquals("netdata", r.programName());
        assertEquals("v1.37.1", r.programVersion());
        assertEquals(List.of(), r.ignoredParameters());

        Map<String, String> info = r.systemInfo();
        assertEquals(StreamRequest.SYSTEM_INFO_NAMES, List.copyOf(info.keySet()));
        assertEquals("Debian GNU/Linux", info.get("NETDATA_CONTAINER_OS_NAME"), "raw spaces survive");
        assertEquals("12 (bookworm)", info.get("NETDATA_CONTAINER_OS_VERSION"));
        assertEquals("2.299e+09", info.get("NETDATA_SYSTEM_CPU_FREQ").replace(' ', '+'),
                "'+' is decoded to a space, as Netdata does");
        assertEquals("2.299e 09", info.get("NETDATA_SYSTEM_CPU_FREQ"));
        assertEquals("6.18.44-fc-v595", info.get("NETDATA_SYSTEM_KERNEL_VERSION"));
        assertEquals("274877906944", info.get("NETDATA_SYSTEM_TOTAL_DISK_SIZE"));
    }

    @Test
    void reEncodesBothCapturedRequestsByteForByte() throws Exception {
        for (String dir : new String[] {Vectors.PLAIN, Vectors.LZ4}) {
            byte[] captured = Vectors.read(dir + "handshake_request.txt");
            StreamRequest parsed = StreamRequest.parse(captured, captured.length);
            StreamRequest.Builder b = parsed.toBuilder();
            // the only lossy value: the child sent "2.299e+09" raw and '+' decodes to a space
            b.systemInfo("NETDATA_SYSTEM_CPU_FREQ", "2.299e+09");
            assertArrayEquals(captured, b.build().encode(), dir);
            assertEquals(new String(captured, StandardCharsets.UTF_8),
                    new String(b.build().encode(), StandardCharsets.UTF_8));
        }
    }

    @Test
    void toBuilderKeepsEverythingForAProxy() throws Exception {
        byte[] captured = Vectors.read(Vectors.PLAIN + "handshake_request.txt");
        StreamRequest parsed = StreamRequest.parse(captured, captured.length);
        StreamRequest forwarded = parsed.toBuilder().key("aaaaaaaa-2222-3333-4444-555555555555")
                .hops(parsed.hops() + 1).build();
        StreamRequest back = StreamRequest.parse(forwarded.encode(), forwarded.encode().length);
        assertEquals(2, back.hops());
        assertEquals("aaaaaaaa-2222-3333-4444-555555555555", back.key());
        assertEquals(parsed.machineGuid(), back.machineGuid());
        assertEquals(parsed.systemInfo(), back.systemInfo());
        assertEquals(parsed.ver(), back.ver());
    }

    @Test
    void lz4ChildOffers16376() throws Exception {
        byte[] bytes = Vectors.read(Vectors.LZ4 + "handshake_request.txt");
        StreamRequest r = StreamRequest.parse(bytes, bytes.length);
        assertEquals(16376, r.ver());
        assertEquals("8690c028-e5a4-11f1-869b-02fc00000001", r.machineGuid());
    }

    @Test
    void builderDefaultsAreA1371Agent() {
        StreamRequest r = StreamRequest.builder().key("k").hostname("h").machineGuid("g").build();
        String text = new String(r.encode(), StandardCharsets.UTF_8);
        assertTrue(text.startsWith("STREAM key=k&hostname=h&registry_hostname=h&machine_guid=g&update_every=1&os=linux"
                + "&timezone=Etc/UTC&abbrev_timezone=UTC&utc_offset=0&hops=1&ml_capable=0&ml_enabled=0&mc_version=1"
                + "&tags=&ver=16376&NETDATA_INSTANCE_CLOUD_TYPE=&"), text);
        assertTrue(text.endsWith("&NETDATA_SYSTEM_TOTAL_DISK_SIZE=&NETDATA_PROTOCOL_VERSION=1.1 HTTP/1.1\r\n"
                + "User-Agent: netdata/v1.37.1\r\nAccept: */*\r\n\r\n"), text);
    }

    @Test
    void onlyTheFiveSystemValuesAreUrlEncoded() throws Exception {
        StreamRequest r = StreamRequest.builder().key("k").hostname("my host").machineGuid("g")
                .systemInfo("NETDATA_SYSTEM_OS_NAME", "Debian GNU/Linux")
                .systemInfo("NETDATA_SYSTEM_OS_VERSION", "12 (bookworm)")
                .systemInfo("NETDATA_SYSTEM_KERNEL_VERSION", "#1 SMP ~é")
                .systemInfo("NETDATA_CONTAINER_OS_NAME", "Debian GNU/Linux")
                .build();
        String text = new String(r.encode(), StandardCharsets.UTF_8);
        assertTrue(text.contains("&hostname=my host&"), text);
        assertTrue(text.contains("&NETDATA_SYSTEM_OS_NAME=Debian+GNU%2fLinux&"), text);
        assertTrue(text.contains("&NETDATA_SYSTEM_OS_VERSION=12+%28bookworm%29&"), text);
        assertTrue(text.contains("&NETDATA_SYSTEM_KERNEL_VERSION=%231+SMP+~%c3%a9&"), text);
        assertTrue(text.contains("&NETDATA_CONTAINER_OS_NAME=Debian GNU/Linux&"), text);

        StreamRequest back = StreamRequest.parse(r.encode(), r.encode().length);
        assertEquals("my host", back.hostname());
        assertEquals("Debian GNU/Linux", back.systemInfo().get("NETDATA_SYSTEM_OS_NAME"));
        assertEquals("12 (bookworm)", back.systemInfo().get("NETDATA_SYSTEM_OS_VERSION"));
        assertEquals("#1 SMP ~  ", back.systemInfo().get("NETDATA_SYSTEM_KERNEL_VERSION"),
                "Netdata's decoder turns each %-decoded non-ASCII byte into a space");
    }

    @Test
    void urlDecodingLikeNetdata() throws Exception {
        StreamRequest r = parse(request("key=a%41b&hostname=x+y%20z&os=new%0aline&timezone=%zz&tags=end%4"));
        assertEquals("aAb", r.key());
        assertEquals("x y z", r.hostname());
        assertEquals("new line", r.os(), "decoded control bytes become spaces");
        assertEquals("3", r.timezone(), "non-hex digits go through Netdata's arithmetic: %zz is '3'");
        assertEquals("end4", r.tags(), "a '%' without two characters after it is dropped");
        // decoding happens before splitting: an encoded '&' or '=' splits too
        StreamRequest split = parse(request("key=k%26hostname%3Dsneaky&machine_guid=g"));
        assertEquals("k", split.key());
        assertEquals("sneaky", split.hostname());
    }

    @Test
    void emptyNamesValuesAndUnknownNamesAreSkipped() throws Exception {
        StreamRequest r = parse(request("&&=v&key=&hostname=h&noequals&machine_guid==g&foo=bar&NETDATA_X=1"));
        assertEquals("", r.key(), "key= with an empty value is ignored");
        assertEquals("h", r.hostname());
        assertEquals("=g", r.machineGuid(), "split at the first '='");
        assertEquals(List.of("foo"), r.ignoredParameters());
        assertEquals(Map.of("NETDATA_X", "1"), r.systemInfo());
    }

    @Test
    void parentDefaultsWhenParametersAreMissing() throws Exception {
        StreamRequest r = parse(request("key=k&hostname=h&machine_guid=g"));
        assertEquals("h", r.registryHostname());
        assertEquals(0, r.updateEvery(), "0 = use the parent's own");
        assertEquals("unknown", r.os());
        assertEquals("unknown", r.timezone());
        assertEquals("UTC", r.abbrevTimezone());
        assertEquals(0, r.utcOffset());
        assertEquals(1, r.hops());
        assertEquals(0, r.mcVersion());
        assertEquals("", r.tags());
        assertEquals(-1, r.ver());
        assertFalse(r.protocolVersion1_1());
        assertEquals(0, r.offeredVersion(), "no ver and no NETDATA_PROTOCOL_VERSION: version 0");
        assertTrue(r.systemInfo().isEmpty());

        StreamRequest withProtocol = parse(request("key=k&NETDATA_PROTOCOL_VERSION=1.1"));
        assertEquals(1, withProtocol.offeredVersion(), "NETDATA_PROTOCOL_VERSION alone: version 1");
        assertFalse(withProtocol.systemInfo().containsKey("NETDATA_PROTOCOL_VERSION"));
    }

    @Test
    void numbersAreReadAsCDoes() throws Exception {
        StreamRequest r = parse(request("ver=0x3ff8&update_every=2s&utc_offset=-3600&hops=65537&ml_capable=1"));
        assertEquals(16376, r.ver());
        assertEquals(2, r.updateEvery());
        assertEquals(-3600, r.utcOffset());
        assertEquals(1, r.hops(), "hops is a uint16 in Netdata");
        assertEquals(1, r.mlCapable());
        assertEquals(4294967295L, parse(request("ver=-1")).ver(), "strtoul(\"-1\") to 32 bits");
        assertEquals(0, parse(request("ver=abc")).ver());
    }

    @Test
    void lastOccurrenceWins() throws Exception {
        StreamRequest r = parse(request("key=a&key=b&ver=3&NETDATA_PROTOCOL_VERSION=1.1&ver=5&NETDATA_X=1&NETDATA_X=2"));
        assertEquals("b", r.key());
        assertEquals(5, r.ver());
        assertEquals("2", r.systemInfo().get("NETDATA_X"));
    }

    @Test
    void userAgentVariants() throws Exception {
        assertEquals(List.of("netdata", "v1.37.1"), programOf("User-Agent: netdata/v1.37.1\r\n"));
        assertEquals(List.of("strata", "0.1/beta"), programOf("user-agent:   strata/0.1/beta\r\n"));
        assertEquals(List.of("agent", ""), programOf("User-Agent: agent\r\n"));
        assertEquals(List.of("", ""), programOf("Accept: */*\r\n"));
        assertEquals(List.of("b", "2"), programOf("User-Agent: a/1\r\nUser-Agent: b/2\r\n"));
        assertEquals(List.of("", ""), programOf("X-User-Agent: a/1\r\n"));
    }

    private static List<String> programOf(String headers) throws StreamRequestException {
        StreamRequest r = parse("STREAM key=k HTTP/1.1\r\n" + headers + "\r\n");
        return List.of(r.programName(), r.programVersion());
    }

    @Test
    void queryEndsAtTheFirstSpaceHttpSlash() throws Exception {
        StreamRequest r = parse("STREAM key=k&hostname=a HTTP/ b HTTP/1.1\r\n\r\n");
        assertEquals("a", r.hostname());
        assertEquals("", r.programName());
    }

    @Test
    void badHeadsFailPrecisely() {
        assertBad("GET /api/v1/info HTTP/1.1\r\n\r\n", "not a STREAM request: it starts with 'GET /api/v1/info'");
        assertBad("STREAM key=k HTTP/1.1\r\n", "does not end with an empty line");
        assertBad("STREAM key=k\r\n\r\n", "no ' HTTP/' after the query");
        assertBad("STREAM key=k\0 HTTP/1.1\r\n\r\n", "NUL byte at offset 12");
        assertBad("STREA", "not a STREAM request");
        assertBad("", "not a STREAM request");
        String huge = "STREAM key=" + "k".repeat(8200) + " HTTP/1.1\r\n\r\n";
        assertBad(huge, "a 1.37.1 parent accepts at most 8192");
    }

    private static void assertBad(String text, String messagePart) {
        StreamRequestException e = assertThrows(StreamRequestException.class, () -> parse(text));
        assertTrue(e.getMessage().contains(messagePart), e.getMessage());
    }

    @Test
    void parseHonoursLen() throws Exception {
        byte[] bytes = Vectors.read(Vectors.PLAIN + "handshake_request.txt");
        byte[] padded = java.util.Arrays.copyOf(bytes, bytes.length + 50);
        assertEquals("ndchild", StreamRequest.parse(padded, bytes.length).hostname());
        assertThrows(StreamRequestException.class, () -> StreamRequest.parse(padded, bytes.length - 1));
        assertThrows(IndexOutOfBoundsException.class, () -> StreamRequest.parse(bytes, bytes.length + 1));
    }

    @Test
    void looksLikeStreamNeedsSevenBytesAndDoesNotConsume() {
        ByteBuf buf = Unpooled.copiedBuffer("xxSTREAM key=", StandardCharsets.US_ASCII);
        try {
            assertFalse(StreamRequest.looksLikeStream(buf));
            buf.skipBytes(2);
            assertTrue(StreamRequest.looksLikeStream(buf));
            assertEquals(2, buf.readerIndex());
        } finally {
            buf.release();
        }
        ByteBuf shortBuf = Unpooled.copiedBuffer("STREAM", StandardCharsets.US_ASCII);
        ByteBuf get = Unpooled.copiedBuffer("GET / HTTP/1.1", StandardCharsets.US_ASCII);
        try {
            assertFalse(StreamRequest.looksLikeStream(shortBuf));
            assertFalse(StreamRequest.looksLikeStream(get));
            assertFalse(StreamRequest.looksLikeStream(null));
        } finally {
            shortBuf.release();
            get.release();
        }
    }

    @Test
    void encodeRefusesWhatWouldBreakTheRequest() {
        assertThrows(IllegalStateException.class,
                () -> StreamRequest.builder().hostname("a\r\nb").build().encode());
        assertThrows(IllegalStateException.class,
                () -> StreamRequest.builder().tags("x HTTP/1.0").build().encode());
        assertThrows(IllegalStateException.class,
                () -> StreamRequest.builder().tags("t".repeat(9000)).build().encode());
        assertThrows(IllegalArgumentException.class,
                () -> StreamRequest.builder().systemInfo("NETDATA_UNKNOWN", "x"));
        assertThrows(IllegalArgumentException.class, () -> StreamRequest.builder().hops(70000));
        assertThrows(IllegalArgumentException.class, () -> StreamRequest.builder().ver(-2));
    }

    @Test
    void encodeWithoutVerOmitsIt() {
        String text = new String(StreamRequest.builder().ver(-1).build().encode(), StandardCharsets.UTF_8);
        assertFalse(text.contains("&ver="), text);
        assertTrue(text.contains("&tags=&NETDATA_INSTANCE_CLOUD_TYPE="), text);
    }

    @Test
    void storedSystemInfoNames() {
        assertEquals("NETDATA_HOST_OS_NAME", StreamRequest.storedSystemInfoName("NETDATA_SYSTEM_OS_NAME"));
        assertEquals("NETDATA_HOST_OS_ID_LIKE", StreamRequest.storedSystemInfoName("NETDATA_SYSTEM_OS_ID_LIKE"));
        assertEquals("NETDATA_SYSTEM_KERNEL_NAME", StreamRequest.storedSystemInfoName("NETDATA_SYSTEM_KERNEL_NAME"));
    }
}
