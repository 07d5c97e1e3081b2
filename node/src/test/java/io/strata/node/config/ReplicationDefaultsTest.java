package io.strata.node.config;

import io.strata.streaming.auth.StreamConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * netdata.conf's {@code [db]} replication keys are the defaults of stream.conf's API-key and
 * machine sections, as in Netdata 1.37.1 (docs/format/stream-handshake.md §4): a parent that is to
 * ask more than a day of a host's history is configured there.
 */
class ReplicationDefaultsTest {

    private static final String KEY = "11111111-2222-3333-4444-555555555555";

    @TempDir
    Path dir;

    private StreamConfig.KeySection key(String db) throws Exception {
        Files.writeString(dir.resolve("netdata.conf"), "[web]\nbind to = 127.0.0.1:0\n[db]\n" + db);
        Files.writeString(dir.resolve("stream.conf"), "[" + KEY + "]\nenabled = yes\n");
        NodeConfig config = NodeConfig.load(dir);
        assertTrue(config.warnings().stream().noneMatch(w -> w.contains("[db]")), config.warnings().toString());
        return config.stream().apiKey(KEY).orElseThrow();
    }

    @Test
    void dbSectionSetsWhatAnApiKeyReplicates() throws Exception {
        StreamConfig.KeySection k = key("seconds to replicate = 90000\nseconds per replication step = 1200\n"
                + "enable replication = no\n");
        assertEquals(90_000, k.secondsToReplicate());
        assertEquals(1_200, k.secondsPerReplicationStep());
        assertFalse(k.enableReplication());
    }

    @Test
    void withoutThemNetdatasDefaultsHold() throws Exception {
        StreamConfig.KeySection k = key("");
        assertEquals(86_400, k.secondsToReplicate());
        assertEquals(600, k.secondsPerReplicationStep());
        assertTrue(k.enableReplication());
    }

    @Test
    void anApiKeysOwnValueWinsOverTheDbSection() throws Exception {
        Files.writeString(dir.resolve("netdata.conf"), "[web]\nbind to = 127.0.0.1:0\n[db]\nseconds to replicate = 90000\n");
        Files.writeString(dir.resolve("stream.conf"), "[" + KEY + "]\nenabled = yes\nseconds to replicate = 3600\n");
        assertEquals(3_600, NodeConfig.load(dir).stream().apiKey(KEY).orElseThrow().secondsToReplicate());
    }
}
