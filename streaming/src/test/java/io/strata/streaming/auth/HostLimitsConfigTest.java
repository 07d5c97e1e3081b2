package io.strata.streaming.auth;

import io.strata.streaming.config.IniFile;
import io.strata.streaming.handshake.Capabilities;
import io.strata.streaming.handshake.HandshakeReplies;
import io.strata.streaming.handshake.StreamRequest;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.Locale;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Strata's bounds on the state one API key's children may make a parent hold: hosts per API key,
 * charts and dimensions per host, from {@code [stream]} over an API-key section over a machine-GUID
 * section; machine GUIDs and keys in any case count as one.
 */
class HostLimitsConfigTest {

    static final String KEY = "11111111-2222-3333-4444-55555555aaaa";
    static final String GUID_A = "5b8185c0-e5a4-11f1-9d33-02fc0000000a";
    static final String GUID_B = "5b8185c0-e5a4-11f1-9d33-02fc0000000b";
    static final String GUID_C = "5b8185c0-e5a4-11f1-9d33-02fc0000000c";
    static final String PARENT_GUID = "aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee";
    static final StreamAuthorizer.LiveReceivers NONE = guid -> -1;

    private static StreamConfig conf(String... lines) throws Exception {
        return StreamConfig.from(IniFile.parse(String.join("\n", lines), "stream.conf"));
    }

    private static StreamRequest request(String key, String guid) throws Exception {
        byte[] bytes = StreamRequest.builder().key(key).hostname("child").machineGuid(guid)
                .ver(Capabilities.NETDATA_1_37_1_WITHOUT_COMPRESSION).build().encode();
        return StreamRequest.parse(bytes, bytes.length);
    }

    @Test
    void defaultsComeFromTheStreamSectionAndTheMostSpecificSectionWins() throws Exception {
        StreamConfig c = conf("[stream]",
                "max hosts per api key = 7",
                "max charts per host = 100",
                "max dimensions per host = 1000",
                "[" + KEY.toUpperCase(Locale.ROOT) + "]",
                "enabled = yes",
                "max charts per host = 50",
                "[" + GUID_A.toUpperCase(Locale.ROOT) + "]",
                "max dimensions per host = 20");
        assertTrue(c.ini().unusedEntries().isEmpty(), c.ini().unusedEntries().toString());
        StreamConfig.KeySection k = c.apiKey(KEY).orElseThrow();
        assertEquals(7, k.maxHostsPerApiKey(), "from [stream]");
        assertEquals(50, k.maxChartsPerHost(), "the key's own");
        assertEquals(1000, k.maxDimensionsPerHost(), "from [stream]");

        StreamAuthorizer a = new StreamAuthorizer(c, true, Capabilities.NETDATA_1_37_1, PARENT_GUID, 0);
        StreamAuthorizer.Decision withGuidSection = a.decide(request(KEY, GUID_A), "127.0.0.1", 0, NONE);
        assertTrue(withGuidSection.accepted(), withGuidSection.logMessage());
        assertEquals(50, withGuidSection.settings().maxChartsPerHost());
        assertEquals(20, withGuidSection.settings().maxDimensionsPerHost(), "the GUID section's");
        StreamAuthorizer.Decision keyOnly = a.decide(request(KEY, GUID_B), "127.0.0.1", 0, NONE);
        assertEquals(50, keyOnly.settings().maxChartsPerHost());
        assertEquals(1000, keyOnly.settings().maxDimensionsPerHost());
    }

    @Test
    void withoutKeysStrataDefaultsApply() throws Exception {
        StreamConfig.KeySection k = conf("[" + KEY + "]", "enabled = yes").apiKey(KEY).orElseThrow();
        assertEquals(StreamConfig.DEFAULT_MAX_HOSTS_PER_API_KEY, k.maxHostsPerApiKey());
        assertEquals(StreamConfig.DEFAULT_MAX_CHARTS_PER_HOST, k.maxChartsPerHost());
        assertEquals(StreamConfig.DEFAULT_MAX_DIMENSIONS_PER_HOST, k.maxDimensionsPerHost());
    }

    @Test
    void aNewHostOverTheKeysLimitIsRefusedWithNetdatasTextAndAKnownOneIsNot() throws Exception {
        StreamConfig c = conf("[" + KEY.toUpperCase(Locale.ROOT) + "]", "enabled = yes", "max hosts per api key = 2");
        StreamAuthorizer a = new StreamAuthorizer(c, true, Capabilities.NETDATA_1_37_1, PARENT_GUID, 0);
        assertTrue(a.decide(request(KEY, GUID_A), "127.0.0.1", 0, NONE).accepted());
        // the same key and host in another case are the same key and host: still two hosts
        assertTrue(a.decide(request(KEY.toUpperCase(Locale.ROOT), GUID_B), "127.0.0.1", 0, NONE).accepted());
        assertTrue(a.decide(request(KEY, GUID_B.toUpperCase(Locale.ROOT)), "127.0.0.1", 0, NONE).accepted());
        assertEquals(2, a.hostsOfKey(KEY.toUpperCase(Locale.ROOT)));

        StreamAuthorizer.Decision third = a.decide(request(KEY, GUID_C), "127.0.0.1", 0, NONE);
        assertFalse(third.accepted());
        assertEquals(HandshakeReplies.NOT_PERMITTED, new String(third.reply(), StandardCharsets.US_ASCII));
        assertTrue(third.logMessage().contains("already has 2 hosts")
                && third.logMessage().contains("max hosts per api key = 2"), third.logMessage());
        assertFalse(third.logMessage().contains(KEY), "the key is masked: " + third.logMessage());

        // a host the key already has reconnects whatever the count
        assertTrue(a.decide(request(KEY, GUID_A.toUpperCase(Locale.ROOT)), "127.0.0.1", 0, NONE).accepted());
        // a removed host frees its place
        a.forgetHost(GUID_B.toUpperCase(Locale.ROOT));
        assertTrue(a.decide(request(KEY, GUID_C), "127.0.0.1", 0, NONE).accepted());
        assertFalse(a.decide(request(KEY, GUID_B), "127.0.0.1", 0, NONE).accepted());
    }

    @Test
    void zeroMeansNoLimit() throws Exception {
        StreamConfig c = conf("[stream]", "max hosts per api key = 0", "[" + KEY + "]", "enabled = yes");
        StreamAuthorizer a = new StreamAuthorizer(c, true, Capabilities.NETDATA_1_37_1, PARENT_GUID, 0);
        for (String g : new String[] {GUID_A, GUID_B, GUID_C}) {
            assertTrue(a.decide(request(KEY, g), "127.0.0.1", 0, NONE).accepted());
        }
        assertEquals(0, a.hostsOfKey(KEY), "a key without a limit is not tracked");
    }
}
