package io.strata.streaming.auth;

import io.strata.streaming.config.IniException;
import io.strata.streaming.config.IniFile;
import io.strata.streaming.handshake.Capabilities;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Who may read a host's past back through the peer replay: exactly a client whose key would let the
 * host's stream in from its address (the key's section and the host's machine-GUID section).
 */
class PeerReadRefusalTest {

    static final String KEY = "aaaaaaaa-2222-3333-4444-555555555555";
    static final String DISABLED_KEY = "bbbbbbbb-2222-3333-4444-555555555555";
    static final String HOST = "cccccccc-2222-3333-4444-555555555555";
    static final String BANNED_HOST = "dddddddd-2222-3333-4444-555555555555";
    static final String FENCED_HOST = "eeeeeeee-2222-3333-4444-555555555555";

    private final StreamAuthorizer authorizer = authorizer();

    private static StreamAuthorizer authorizer() {
        try {
            String conf = String.join("\n",
                    "[" + KEY + "]", "enabled = yes", "allow from = 10.* 127.0.0.1",
                    "[" + DISABLED_KEY + "]", "enabled = no",
                    "[" + BANNED_HOST + "]", "enabled = no",
                    "[" + FENCED_HOST + "]", "allow from = 10.*", "");
            return new StreamAuthorizer(StreamConfig.from(IniFile.parse(conf, "stream.conf")), true,
                    Capabilities.NETDATA_1_37_1, "ffffffff-2222-3333-4444-555555555555", 0);
        } catch (IniException e) {
            throw new IllegalStateException(e);
        }
    }

    @Test
    void aKeyThatLetsTheHostInFromTheAddressMayRead() {
        assertNull(authorizer.peerReadRefusal(KEY, HOST, "10.1.2.3"));
        assertNull(authorizer.peerReadRefusal(KEY.toUpperCase(), HOST.toUpperCase(), "127.0.0.1"));
        assertNull(authorizer.peerReadRefusal(KEY, FENCED_HOST, "10.9.9.9"));
    }

    @Test
    void everythingElseIsRefusedWithAReasonThatMasksTheKey() {
        assertNotNull(authorizer.peerReadRefusal("", HOST, "10.1.2.3"));
        assertNotNull(authorizer.peerReadRefusal("not-a-uuid", HOST, "10.1.2.3"));
        assertNotNull(authorizer.peerReadRefusal(KEY, "some-hostname", "10.1.2.3"));
        String disabled = authorizer.peerReadRefusal(DISABLED_KEY, HOST, "10.1.2.3");
        assertNotNull(disabled);
        assertTrue(!disabled.contains(DISABLED_KEY), disabled);
        assertNotNull(authorizer.peerReadRefusal("99999999-2222-3333-4444-555555555555", HOST, "10.1.2.3"));
        assertNotNull(authorizer.peerReadRefusal(KEY, HOST, "192.168.1.1"), "the key's allow from");
        assertNotNull(authorizer.peerReadRefusal(KEY, BANNED_HOST, "10.1.2.3"), "the host's section disables it");
        assertNotNull(authorizer.peerReadRefusal(KEY, FENCED_HOST, "127.0.0.1"), "the host's allow from");
    }
}
