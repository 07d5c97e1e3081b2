package io.strata.streaming.auth;

import static io.strata.streaming.handshake.HandshakeReplies.Kind.ACCEPTED;
import static io.strata.streaming.handshake.HandshakeReplies.Kind.ALREADY_STREAMING;
import static io.strata.streaming.handshake.HandshakeReplies.Kind.BUSY;
import static io.strata.streaming.handshake.HandshakeReplies.Kind.LOCALHOST;
import static io.strata.streaming.handshake.HandshakeReplies.Kind.NOT_PERMITTED;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.strata.streaming.config.IniFile;
import io.strata.streaming.handshake.Capabilities;
import io.strata.streaming.handshake.HandshakeReplies;
import io.strata.streaming.handshake.StreamRequest;

import java.nio.charset.StandardCharsets;

import org.junit.jupiter.api.Test;

class StreamAuthorizerTest {

    static final String KEY = "11111111-2222-3333-4444-555555555555";
    static final String GUID = "5b8185c0-e5a4-11f1-9d33-02fc00000001";
    static final String PARENT_GUID = "aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee";
    /** How logs show {@link #KEY}. */
    static final String MASKED_KEY = "11111111-****";
    static final long NOW = 1_795_262_950_123L;
    static final StreamAuthorizer.LiveReceivers NONE = guid -> -1;

    private static StreamConfig conf(String... lines) throws Exception {
        return StreamConfig.from(IniFile.parse(String.join("\n", lines), "stream.conf"));
    }

    private static StreamAuthorizer authorizer(StreamConfig conf) {
        return new StreamAuthorizer(conf, true, Capabilities.NETDATA_1_37_1, PARENT_GUID, 0);
    }

    private static StreamRequest.Builder child() {
        return StreamRequest.builder().key(KEY).hostname("ndchild").machineGuid(GUID)
                .ver(Capabilities.NETDATA_1_37_1_WITHOUT_COMPRESSION);
    }

    /** A request as the parent parses it, from the builder's bytes. */
    private static StreamRequest received(StreamRequest.Builder b) throws Exception {
        byte[] bytes = b.build().encode();
        return StreamRequest.parse(bytes, bytes.length);
    }

    private static final String[] ENABLED_KEY = {"[" + KEY + "]", "enabled = yes"};

    private static String text(byte[] reply) {
        return new String(reply, StandardCharsets.US_ASCII);
    }

    private static void assertRefused(StreamAuthorizer.Decision d, HandshakeReplies.Kind kind, String reason) {
        assertFalse(d.accepted(), d.logMessage());
        assertEquals(kind, d.kind());
        assertArrayEquals(HandshakeReplies.refusal(kind), d.reply());
        assertTrue(d.closeAfterReply());
        assertEquals(0, d.negotiatedCaps());
        assertFalse(d.replaceExistingReceiver());
        assertNull(d.settings());
        assertTrue(d.logMessage().contains(": refused (" + kind + "): "), d.logMessage());
        assertTrue(d.logMessage().contains(reason), d.logMessage());
    }

    @Test
    void acceptsTheCapturedChildLikeTheRealParent() throws Exception {
        StreamAuthorizer a = authorizer(conf(ENABLED_KEY));
        StreamAuthorizer.Decision d = a.decide(received(child()), "127.0.0.1", NOW, NONE);
        assertTrue(d.accepted(), d.logMessage());
        assertEquals(ACCEPTED, d.kind());
        assertEquals("Hit me baby, push them over with the version=15296", text(d.reply()));
        assertEquals(15296, d.negotiatedCaps());
        assertFalse(d.closeAfterReply());
        assertFalse(d.replaceExistingReceiver());
        assertEquals("STREAM 'ndchild' from [127.0.0.1] machine_guid '" + GUID + "' api key '" + MASKED_KEY
                + "': accepted; offered ver=15352 [VCAPS HLABELS CLAIM CLABELS FUNCTIONS REPLICATION BINARY],"
                + " negotiated 15296 [VCAPS HLABELS CLAIM CLABELS FUNCTIONS REPLICATION BINARY]", d.logMessage());

        StreamAuthorizer.Decision lz4 = a.decide(received(child().ver(16376)), "127.0.0.1", NOW, NONE);
        assertEquals("Hit me baby, push them over with the version=16320", text(lz4.reply()));
    }

    @Test
    void missingParametersAreRefused() throws Exception {
        StreamAuthorizer a = authorizer(conf(ENABLED_KEY));
        assertRefused(a.decide(received(child().key("")), "10.0.0.1", NOW, NONE), NOT_PERMITTED,
                "the request has no API key");
        assertRefused(a.decide(received(child().hostname("")), "10.0.0.1", NOW, NONE), NOT_PERMITTED,
                "the request has no hostname");
        assertRefused(a.decide(received(child().machineGuid("")), "10.0.0.1", NOW, NONE), NOT_PERMITTED,
                "the request has no machine_guid");
    }

    @Test
    void nonUuidsAreRefused() throws Exception {
        StreamAuthorizer a = authorizer(conf("[not-a-uuid]", "enabled = yes"));
        assertRefused(a.decide(received(child().key("not-a-uuid")), "10.0.0.1", NOW, NONE), NOT_PERMITTED,
                "the API key is not a UUID");
        assertRefused(a.decide(received(child().key(KEY).machineGuid("5b8185c0e5a411f19d3302fc00000001")),
                "10.0.0.1", NOW, NONE), NOT_PERMITTED, "the machine_guid is not a UUID");
    }

    @Test
    void keySectionChecks() throws Exception {
        assertRefused(authorizer(conf("")).decide(received(child()), "10.0.0.1", NOW, NONE), NOT_PERMITTED,
                "the API key has no section in stream.conf (a key needs its section with enabled = yes)");
        assertRefused(authorizer(conf("[" + KEY + "]", "enabled = no")).decide(received(child()), "10.0.0.1", NOW,
                NONE), NOT_PERMITTED, "API key section [" + MASKED_KEY + "] (stream.conf:1) is not enabled");
        assertRefused(authorizer(conf("[" + KEY + "]", "allow from = *")).decide(received(child()), "10.0.0.1", NOW,
                NONE), NOT_PERMITTED, "is not enabled (it needs enabled = yes)");
        assertRefused(authorizer(conf("[" + KEY + "]", "type = machine", "enabled = yes")).decide(received(child()),
                "10.0.0.1", NOW, NONE), NOT_PERMITTED, "section [" + MASKED_KEY + "] (stream.conf:1) has type = 'machine',"
                + " not 'api', so it cannot be used as an API key");
        StreamAuthorizer a = authorizer(conf("[" + KEY + "]", "enabled = yes", "allow from = !10.0.0.66 10.*"));
        assertRefused(a.decide(received(child()), "10.0.0.66", NOW, NONE), NOT_PERMITTED,
                "API key [" + MASKED_KEY + "] is not allowed from 10.0.0.66 (allow from = '!10.0.0.66 10.*' in the section"
                        + " at stream.conf:1)");
        assertRefused(a.decide(received(child()), "192.168.1.1", NOW, NONE), NOT_PERMITTED, "is not allowed from");
        assertTrue(a.decide(received(child()), "10.0.0.1", NOW, NONE).accepted());
    }

    @Test
    void anEmptyAllowFromAllowsEveryone() throws Exception {
        StreamAuthorizer a = authorizer(conf("[" + KEY + "]", "enabled = yes", "allow from =",
                "[" + GUID + "]", "allow from = !"));
        assertTrue(a.decide(received(child()), "203.0.113.9", NOW, NONE).accepted());
    }

    @Test
    void machineSectionChecks() throws Exception {
        assertRefused(authorizer(conf("[" + KEY + "]", "enabled = yes", "[" + GUID + "]", "enabled = no"))
                .decide(received(child()), "10.0.0.1", NOW, NONE), NOT_PERMITTED,
                "machine GUID section [" + GUID + "] (stream.conf:3) disables this child (enabled = no)");
        assertRefused(authorizer(conf("[" + KEY + "]", "enabled = yes", "[" + GUID + "]", "type = api"))
                .decide(received(child()), "10.0.0.1", NOW, NONE), NOT_PERMITTED,
                "section [" + GUID + "] (stream.conf:3) has type = 'api', not 'machine'");
        assertRefused(authorizer(conf("[" + KEY + "]", "enabled = yes", "[" + GUID + "]", "allow from = 10.0.0.2"))
                .decide(received(child()), "10.0.0.1", NOW, NONE), NOT_PERMITTED,
                "machine GUID [" + GUID + "] is not allowed from 10.0.0.1 (allow from = '10.0.0.2' in the section at"
                        + " stream.conf:3)");
        // the key is checked first: a disabled key wins over a disabled GUID
        assertRefused(authorizer(conf("[" + KEY + "]", "enabled = no", "[" + GUID + "]", "enabled = no"))
                .decide(received(child()), "10.0.0.1", NOW, NONE), NOT_PERMITTED, "API key section");
    }

    @Test
    void theSameStringAsKeyAndGuidIsRefusedAsNetdataDoes() throws Exception {
        StreamAuthorizer a = authorizer(conf("[" + GUID + "]", "enabled = yes"));
        assertRefused(a.decide(received(child().key(GUID)), "10.0.0.1", NOW, NONE), NOT_PERMITTED,
                "the API key and the machine GUID are the same string");
    }

    @Test
    void rateLimitAcceptsOneStreamPerPeriod() throws Exception {
        StreamAuthorizer a = new StreamAuthorizer(conf(ENABLED_KEY), true, Capabilities.NETDATA_1_37_1, PARENT_GUID, 10);
        StreamRequest r = received(child());
        assertTrue(a.decide(r, "10.0.0.1", NOW, NONE).accepted());
        assertRefused(a.decide(r, "10.0.0.1", NOW + 9_000, NONE), BUSY,
                "rate limit: one new stream every 10 s from an address ([web] accept a streaming request every seconds);"
                        + " next in 1 s");
        assertTrue(a.decide(r, "10.0.0.1", NOW + 10_000, NONE).accepted());
        // refusals before the rate limit do not use it up
        StreamRequest noKey = received(child().key(""));
        assertEquals(NOT_PERMITTED, a.decide(noKey, "10.0.0.1", NOW + 20_000, NONE).kind());
        assertTrue(a.decide(r, "10.0.0.1", NOW + 20_000, NONE).accepted());
        // a stream refused after the rate limit (duplicate) still took the slot, as in Netdata
        assertEquals(ALREADY_STREAMING, a.decide(r, "10.0.0.1", NOW + 30_000, guid -> NOW + 29_000).kind());
        assertEquals(BUSY, a.decide(r, "10.0.0.1", NOW + 31_000, NONE).kind());
    }

    @Test
    void duplicateGuidWithRecentDataIsRefusedOlderIsReplaced() throws Exception {
        StreamAuthorizer a = authorizer(conf(ENABLED_KEY));
        StreamRequest r = received(child());
        long nowSecond = NOW / 1000 * 1000;
        assertRefused(a.decide(r, "10.0.0.1", NOW, guid -> nowSecond - 30_000), ALREADY_STREAMING,
                "a receiver for this machine GUID is live (last data 30 s ago, within 30 s)");
        assertRefused(a.decide(r, "10.0.0.1", NOW, guid -> NOW), ALREADY_STREAMING, "last data 0 s ago");
        StreamAuthorizer.Decision d = a.decide(r, "10.0.0.1", NOW, guid -> nowSecond - 31_000);
        assertTrue(d.accepted());
        assertTrue(d.replaceExistingReceiver());
        assertTrue(d.logMessage().endsWith("; replacing the previous receiver of this machine GUID (last data 31 s"
                + " ago)"), d.logMessage());
        // only the GUID asked about counts
        assertFalse(a.decide(r, "10.0.0.1", NOW, guid -> guid.equals("other") ? NOW : -1).replaceExistingReceiver());
    }

    @Test
    void ownMachineGuidIsRefusedWithTheLocalhostReply() throws Exception {
        StreamAuthorizer a = authorizer(conf(ENABLED_KEY));
        StreamAuthorizer.Decision d = a.decide(received(child().machineGuid(PARENT_GUID)), "10.0.0.1", NOW, NONE);
        assertRefused(d, LOCALHOST, "the machine GUID is this parent's own");
        assertEquals("Don't hit me baby, you are trying to stream my localhost back", text(d.reply()));
    }

    @Test
    void compressionNeedsGlobalKeyAndGuid() throws Exception {
        StreamRequest lz4 = received(child().ver(16376));
        assertEquals(16320, authorizer(conf(ENABLED_KEY)).decide(lz4, "h", NOW, NONE).negotiatedCaps());

        StreamAuthorizer globalOff = new StreamAuthorizer(conf(ENABLED_KEY), false, Capabilities.NETDATA_1_37_1,
                PARENT_GUID, 0);
        StreamAuthorizer.Decision d = globalOff.decide(lz4, "h", NOW, NONE);
        assertEquals(15296, d.negotiatedCaps());
        assertEquals("Hit me baby, push them over with the version=15296", text(d.reply()));
        assertFalse(d.settings().compression());
        assertTrue(d.logMessage().contains("; compression disabled by stream.conf"), d.logMessage());

        assertEquals(15296, authorizer(conf("[" + KEY + "]", "enabled = yes", "enable compression = no"))
                .decide(lz4, "h", NOW, NONE).negotiatedCaps());
        assertEquals(15296, authorizer(conf("[" + KEY + "]", "enabled = yes", "[" + GUID + "]",
                "enable compression = no")).decide(lz4, "h", NOW, NONE).negotiatedCaps());
        assertEquals(16320, authorizer(conf("[" + KEY + "]", "enabled = yes", "enable compression = no",
                "[" + GUID + "]", "enable compression = yes")).decide(lz4, "h", NOW, NONE).negotiatedCaps(),
                "the GUID section overrides the key");
        assertEquals(15296, authorizer(conf("[stream]", "enable compression = no", "[" + KEY + "]", "enabled = yes"))
                .decide(lz4, "h", NOW, NONE).negotiatedCaps(), "the key inherits [stream] enable compression");
    }

    @Test
    void oldProtocolChildren() throws Exception {
        StreamAuthorizer a = authorizer(conf(ENABLED_KEY));
        assertEquals(HandshakeReplies.PROMPT_V1, text(a.decide(received(child().ver(1)), "h", NOW, NONE).reply()));
        assertEquals(HandshakeReplies.PROMPT_V1, text(a.decide(received(child().ver(-1)), "h", NOW, NONE).reply()));
        assertEquals(HandshakeReplies.PROMPT_V1, text(a.decide(received(child().ver(-1).protocolVersion1_1(false)),
                "h", NOW, NONE).reply()));
        assertEquals(HandshakeReplies.PROMPT_V2, text(a.decide(received(child().ver(2)), "h", NOW, NONE).reply()));
        assertEquals(HandshakeReplies.PROMPT_VERSION + "3", text(a.decide(received(child().ver(3)), "h", NOW, NONE)
                .reply()));
        assertEquals(HandshakeReplies.PROMPT_VERSION + "4", text(a.decide(received(child().ver(4)), "h", NOW, NONE)
                .reply()));
        StreamAuthorizer.Decision v5 = a.decide(received(child().ver(5)), "h", NOW, NONE);
        assertEquals(HandshakeReplies.PROMPT_VERSION + "5", text(v5.reply()));
        assertEquals(Capabilities.normalise(5), v5.negotiatedCaps());
        StreamAuthorizer noCompression = authorizer(conf("[" + KEY + "]", "enabled = yes", "enable compression = no"));
        assertEquals(HandshakeReplies.PROMPT_VERSION + "4",
                text(noCompression.decide(received(child().ver(5)), "h", NOW, NONE).reply()));
        assertEquals(HandshakeReplies.PROMPT_VERSION + "3",
                text(a.decide(received(child().ver(Capabilities.VN)), "h", NOW, NONE).reply()),
                "a bare VN bitmask is answered with the old number");
    }

    @Test
    void settingsInheritParentDefaultsKeyThenGuid() throws Exception {
        StreamConfig c = conf("[stream]", "enabled = yes", "destination = gp:19999", "api key = " + KEY,
                "[" + KEY + "]", "enabled = yes", "default history = 7200", "default memory mode = ram",
                "health enabled by default = auto", "default proxy send charts matching = system.*");
        StreamAuthorizer.Decision d = authorizer(c).decide(received(child().updateEvery(2).tags("a=b")), "h", NOW, NONE);
        assertEquals(new StreamAuthorizer.EffectiveSettings(2, 7200, "ram", HealthSetting.AUTO, 60, true, true, 86400,
                600, true, "gp:19999", KEY, "system.*", "a=b"), d.settings());

        StreamConfig withGuid = conf("[" + KEY + "]", "enabled = yes", "default proxy enabled = yes",
                "default proxy destination = gp", "[" + GUID + "]", "update every = 5", "history = 2", "memory mode = none",
                "health enabled = no", "postpone alarms on connect seconds = 0", "proxy api key = " + KEY,
                "enable replication = no", "seconds to replicate = 60", "seconds per replication step = 30",
                "host tags = rack=7");
        StreamAuthorizer.Decision g = authorizer(withGuid).decide(received(child()), "h", NOW, NONE);
        assertEquals(new StreamAuthorizer.EffectiveSettings(5, 5, "none", HealthSetting.NO, 0, true, false, 60, 30,
                true, "gp", KEY, "*", "rack=7"), g.settings(), "history below 5 becomes 5");
    }

    @Test
    void proxyNeedsDestinationAndKey() throws Exception {
        StreamConfig c = conf("[" + KEY + "]", "enabled = yes", "default proxy enabled = yes",
                "default proxy destination = gp");
        assertFalse(authorizer(c).decide(received(child()), "h", NOW, NONE).settings().proxyEnabled());
    }

    @Test
    void updateEveryFallsBackToTheParentsOwn() throws Exception {
        StreamConfig c = StreamConfig.from(IniFile.parse("[" + KEY + "]\nenabled = yes\n", "s"),
                new HostDefaults(3, 3600, "dbengine", HealthSetting.YES, true, 86400, 600));
        byte[] head = ("STREAM key=" + KEY + "&hostname=h&machine_guid=" + GUID + " HTTP/1.1\r\n\r\n")
                .getBytes(StandardCharsets.US_ASCII);
        StreamAuthorizer.Decision d = authorizer(c).decide(StreamRequest.parse(head, head.length), "h", NOW, NONE);
        assertEquals(3, d.settings().updateEvery());
        assertEquals(HandshakeReplies.PROMPT_V1, text(d.reply()), "no ver at all: a V1 child");
        assertEquals(Capabilities.V1, d.negotiatedCaps());
    }

    @Test
    void constructorValidates() throws Exception {
        StreamConfig c = conf(ENABLED_KEY);
        assertThrows(IllegalArgumentException.class,
                () -> new StreamAuthorizer(c, true, Capabilities.NETDATA_1_37_1, PARENT_GUID, -1));
        assertThrows(NullPointerException.class,
                () -> new StreamAuthorizer(c, true, Capabilities.NETDATA_1_37_1, null, 0));
    }

    // ---- one canonical form for UUIDs: upper- and mixed-case spellings must not slip past a check ----

    static final String GUID_UPPER = GUID.toUpperCase(java.util.Locale.ROOT);
    static final String GUID_MIXED = "5B8185c0-E5a4-11F1-9d33-02Fc00000001";

    @Test
    void aMachineGuidSectionAppliesToEverySpellingOfTheGuid() throws Exception {
        for (String section : new String[]{GUID, GUID_UPPER, GUID_MIXED}) {
            StreamAuthorizer a = authorizer(conf("[" + KEY + "]", "enabled = yes", "[" + section + "]", "enabled = no"));
            for (String sent : new String[]{GUID, GUID_UPPER, GUID_MIXED}) {
                assertRefused(a.decide(received(child().machineGuid(sent)), "10.0.0.1", NOW, NONE), NOT_PERMITTED,
                        "disables this child (enabled = no)");
            }
        }
    }

    @Test
    void anApiKeySectionAppliesToEverySpellingOfTheKey() throws Exception {
        String keyWithLetters = "abcdef01-2222-3333-4444-555555555555";
        for (String section : new String[]{keyWithLetters, keyWithLetters.toUpperCase(java.util.Locale.ROOT)}) {
            StreamAuthorizer a = authorizer(conf("[" + section + "]", "enabled = yes", "allow from = 10.0.0.1"));
            for (String sent : new String[]{keyWithLetters, keyWithLetters.toUpperCase(java.util.Locale.ROOT),
                    "AbCdEf01-2222-3333-4444-555555555555"}) {
                assertTrue(a.decide(received(child().key(sent)), "10.0.0.1", NOW, NONE).accepted(), sent);
                assertRefused(a.decide(received(child().key(sent)), "10.0.0.2", NOW, NONE), NOT_PERMITTED,
                        "is not allowed from 10.0.0.2");
            }
        }
    }

    @Test
    void theParentsOwnGuidIsRefusedInAnyCase() throws Exception {
        StreamAuthorizer a = authorizer(conf(ENABLED_KEY));
        for (String sent : new String[]{PARENT_GUID.toUpperCase(java.util.Locale.ROOT), "AaAaAaAa-bBbB-cccc-DDDD-eeeeeeeeeeee"}) {
            assertRefused(a.decide(received(child().machineGuid(sent)), "10.0.0.1", NOW, NONE), LOCALHOST,
                    "the machine GUID is this parent's own");
        }
        StreamAuthorizer upperParent = new StreamAuthorizer(conf(ENABLED_KEY), true, Capabilities.NETDATA_1_37_1,
                PARENT_GUID.toUpperCase(java.util.Locale.ROOT), 0);
        assertRefused(upperParent.decide(received(child().machineGuid(PARENT_GUID)), "10.0.0.1", NOW, NONE), LOCALHOST,
                "the machine GUID is this parent's own");
    }

    @Test
    void aLiveStreamIsFoundWhateverTheCaseOfTheNewcomersGuid() throws Exception {
        StreamAuthorizer a = authorizer(conf(ENABLED_KEY));
        // the live receivers know the GUID in its canonical (lower-case) form only
        StreamAuthorizer.LiveReceivers live = guid -> guid.equals(GUID) ? NOW : -1;
        for (String sent : new String[]{GUID_UPPER, GUID_MIXED}) {
            assertRefused(a.decide(received(child().machineGuid(sent)), "10.0.0.1", NOW, live), ALREADY_STREAMING,
                    "a receiver for this machine GUID is live");
        }
    }

    @Test
    void theStreamRateLimitIsPerClientAddress() throws Exception {
        StreamAuthorizer a = new StreamAuthorizer(conf(ENABLED_KEY), true, Capabilities.NETDATA_1_37_1, PARENT_GUID, 10);
        StreamRequest r = received(child());
        assertTrue(a.decide(r, "10.0.0.1", NOW, NONE).accepted());
        // another client in the same second is not kept waiting by the first
        assertTrue(a.decide(r, "10.0.0.2", NOW, NONE).accepted());
        assertEquals(BUSY, a.decide(r, "10.0.0.1", NOW + 1_000, NONE).kind());
        assertEquals(BUSY, a.decide(r, "10.0.0.2", NOW + 1_000, NONE).kind());
        assertTrue(a.decide(r, "10.0.0.3", NOW + 1_000, NONE).accepted());
    }

    @Test
    void peerTextInTheLogCannotForgeLinesAndTheKeyIsMasked() throws Exception {
        StreamAuthorizer a = authorizer(conf(ENABLED_KEY));
        // the parent URL-decodes the query: %0A and %1B arrive as LF and ESC
        byte[] head = ("STREAM key=" + KEY + "&hostname=evil%0A2026-01-01 ERROR forged%1B[31m&machine_guid=" + GUID
                + "&ver=16376 HTTP/1.1\r\n\r\n").getBytes(StandardCharsets.US_ASCII);
        StreamAuthorizer.Decision d = a.decide(StreamRequest.parse(head, head.length), "10.0.0.1", NOW, NONE);
        assertTrue(d.accepted(), d.logMessage());
        assertTrue(d.logMessage().chars().noneMatch(c -> c < 0x20 || c == 0x7f), d.logMessage());
        assertTrue(d.logMessage().contains("evil"), d.logMessage());
        assertFalse(d.logMessage().contains(KEY), d.logMessage());
        StreamAuthorizer.Decision refused = authorizer(conf("[" + KEY + "]", "enabled = no")).decide(received(child()),
                "10.0.0.1", NOW, NONE);
        assertFalse(refused.logMessage().contains(KEY), refused.logMessage());
    }
}
