package io.strata.engine.meta;

import io.strata.engine.io.FileChannelIo;
import io.strata.engine.recovery.RecoveryReport;
import io.strata.engine.registry.MetricRegistry;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Host and chart labels keep the order they were received in (Netdata lists them so), in memory
 * and across a reopen; a host keeps the system facts of its handshake and the digest of the API key
 * it streamed in with; a host record written before those were stored still reads.
 */
class LabelOrderTest {

    private static final UUID HOST = UUID.fromString("6f1b3f6e-0000-4000-8000-0000000000bb");

    /** 17 labels in a received order that is neither sorted nor a hash order. */
    private static Map<String, String> received() {
        Map<String, String> m = new LinkedHashMap<>();
        for (String k : new String[] {"_os_name", "_os_version", "_kernel_version", "_system_cores",
                "_system_cpu_freq", "_system_ram_total", "_system_disk_space", "_architecture", "_virtualization",
                "_container", "_container_detection", "_virt_detection", "_aclk_available", "_is_ephemeral",
                "_has_unstable_connection", "_is_parent", "_streams_to"}) {
            m.put(k, "v" + k.length());
        }
        return m;
    }

    private static List<String> keys(Map<String, String> m) {
        return new ArrayList<>(m.keySet());
    }

    @Test
    void labelsAndSystemInfoKeepTheirOrderAcrossAReopen(@TempDir Path dir) throws Exception {
        Map<String, String> system = new LinkedHashMap<>();
        system.put("NETDATA_HOST_OS_NAME", "Debian GNU/Linux");
        system.put("NETDATA_HOST_OS_ID", "debian");
        system.put("NETDATA_SYSTEM_KERNEL_NAME", "Linux");
        HostInfo host = new HostInfo(HOST, "h", "linux", "UTC", 1, received(), system);
        ChartInfo chart = new ChartInfo(HOST, "disk_space./", "disk_space./", "t", "GiB", "/", "disk.space", "stacked",
                2023, 10, "proc", "diskspace", received());
        assertEquals(keys(received()), keys(host.labels()));
        assertEquals(keys(received()), keys(chart.labels()));
        try (MetadataStore m = MetadataStore.open(FileChannelIo.INSTANCE, dir, new MetricRegistry(3), new RecoveryReport())) {
            m.upsertHost(host);
            m.upsertChart(chart);
        }
        try (MetadataStore m = MetadataStore.open(FileChannelIo.INSTANCE, dir, new MetricRegistry(3), new RecoveryReport())) {
            HostInfo back = m.hosts().get(0);
            assertEquals(keys(received()), keys(back.labels()));
            assertEquals(keys(system), keys(back.systemInfo()));
            assertEquals("debian", back.systemInfo().get("NETDATA_HOST_OS_ID"));
            assertEquals(keys(received()), keys(m.chart(0).labels()));
        }
    }

    @Test
    void aHostRecordWithoutSystemInfoStillReads() throws Exception {
        HostInfo host = new HostInfo(HOST, "h", "linux", "UTC", 1, received());
        ByteBuffer rec = MetadataCodec.encode(host);
        // the payload without its trailing system_info map (an empty map: two zero bytes)
        int len = rec.order(ByteOrder.LITTLE_ENDIAN).getInt(0);
        ByteBuffer payload = ByteBuffer.wrap(rec.array(), 5, len - 1 - 2).slice().order(ByteOrder.LITTLE_ENDIAN);
        HostInfo back = (HostInfo) MetadataCodec.decode(MetadataCodec.TYPE_HOST, payload);
        assertEquals(host, back);
        assertEquals(Map.of(), back.systemInfo());
        assertEquals(keys(received()), keys(back.labels()));
    }

    /** The host record of docs/format/metadata.md's example, byte for byte, and its older form without system_info. */
    @Test
    void theDocumentedHostRecord() throws Exception {
        HostInfo host = new HostInfo(UUID.fromString("00112233-4455-6677-8899-aabbccddeeff"), "h1", "linux", "UTC", 1,
                Map.of("k", "v"));
        ByteBuffer rec = MetadataCodec.encode(host);
        StringBuilder hex = new StringBuilder();
        for (int i = rec.position(); i < rec.limit(); i++) {
            hex.append(String.format("%02x", rec.get(i)));
        }
        assertEquals("2f000000" + "01" + "7766554433221100ffeeddccbbaa9988" + "02006831" + "05006c696e7578" + "0300555443"
                + "01000000" + "0100" + "01006b" + "010076" + "0000" + "f7668504", hex.toString());
        byte[] old = HexFormat.of().parseHex("7766554433221100ffeeddccbbaa9988" + "02006831" + "05006c696e7578"
                + "0300555443" + "01000000" + "0100" + "01006b" + "010076");
        assertEquals(host, MetadataCodec.decode(MetadataCodec.TYPE_HOST, ByteBuffer.wrap(old).order(ByteOrder.LITTLE_ENDIAN)));
    }

    @Test
    void theStreamKeyDigestSurvivesAReopenAndOlderRecordsReadWithoutIt(@TempDir Path dir) throws Exception {
        String digest = "0123456789abcdef0123456789abcdef";
        HostInfo host = new HostInfo(HOST, "h", "linux", "UTC", 1, received(), Map.of("NETDATA_HOST_OS_ID", "debian"),
                digest);
        try (MetadataStore m = MetadataStore.open(FileChannelIo.INSTANCE, dir, new MetricRegistry(3), new RecoveryReport())) {
            m.upsertHost(host);
            // new labels keep the key the host came with
            m.upsertHost(host.withLabels(Map.of("a", "b")));
        }
        try (MetadataStore m = MetadataStore.open(FileChannelIo.INSTANCE, dir, new MetricRegistry(3), new RecoveryReport())) {
            HostInfo back = m.hosts().get(0);
            assertEquals(digest, back.streamKeyDigest());
            assertEquals(Map.of("a", "b"), back.labels());
            assertEquals("debian", back.systemInfo().get("NETDATA_HOST_OS_ID"));
        }
        // a record written before the digest ends after system_info: it reads with none
        ByteBuffer rec = MetadataCodec.encode(host);
        int len = rec.order(ByteOrder.LITTLE_ENDIAN).getInt(0);
        int digestBytes = 2 + digest.length();
        ByteBuffer payload = ByteBuffer.wrap(rec.array(), 5, len - 1 - digestBytes).slice().order(ByteOrder.LITTLE_ENDIAN);
        HostInfo older = (HostInfo) MetadataCodec.decode(MetadataCodec.TYPE_HOST, payload);
        assertEquals("", older.streamKeyDigest());
        assertEquals(host.systemInfo(), older.systemInfo());
    }
}
