package io.strata.engine.meta;

import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.UUID;
import java.util.zip.CRC32C;

/**
 * Records of the metadata log ({@code docs/format/metadata.md}):
 *
 * <pre>
 * +--------+------+-----------------------------+--------+
 * | len u32| type | payload (len - 1 bytes)     | crc u32|   crc32c over len, type and payload
 * +--------+------+-----------------------------+--------+
 * strings: u16 byte length + UTF-8; maps: u16 count + key/value strings; UUID: msb, lsb (LE longs)
 * </pre>
 */
final class MetadataCodec {
    static final int TYPE_HOST = 1;
    static final int TYPE_CHART = 2;
    static final int TYPE_DIMENSION = 3;
    static final int TYPE_HOST_REMOVED = 4;

    /** A host removed with everything it defined ({@code MetadataStore.removeHost}). */
    record HostRemoved(UUID machineGuid) {
    }
    static final int MAX_RECORD = 1 << 20;

    private MetadataCodec() {
    }

    /** Thrown for a record that cannot be decoded (bad type, bad length, bad string). */
    static final class BadRecordException extends Exception {
        private static final long serialVersionUID = 1L;

        BadRecordException(String message) {
            super(message);
        }
    }

    static ByteBuffer encode(Object rec) {
        ByteBuffer b = ByteBuffer.allocate(4096).order(ByteOrder.LITTLE_ENDIAN);
        b.position(4);
        if (rec instanceof HostInfo h) {
            b = put(b, (byte) TYPE_HOST);
            b = putUuid(b, h.machineGuid());
            b = putString(b, h.hostname());
            b = putString(b, h.os());
            b = putString(b, h.timezone());
            b = ensure(b, 4).putInt(h.updateEvery());
            b = putMap(b, h.labels());
            b = putMap(b, h.systemInfo());
            if (!h.streamKeyDigest().isEmpty()) {
                // written only for a host that came by a stream: other records keep their old bytes
                b = putString(b, h.streamKeyDigest());
            }
        } else if (rec instanceof ChartInfo c) {
            b = put(b, (byte) TYPE_CHART);
            b = putUuid(b, c.hostGuid());
            b = putString(b, c.id());
            b = putString(b, c.name());
            b = putString(b, c.title());
            b = putString(b, c.units());
            b = putString(b, c.family());
            b = putString(b, c.context());
            b = putString(b, c.chartType());
            b = ensure(b, 12).putLong(c.priority()).putInt(c.updateEvery());
            b = putString(b, c.plugin());
            b = putString(b, c.module());
            b = putMap(b, c.labels());
        } else if (rec instanceof DimensionInfo d) {
            b = put(b, (byte) TYPE_DIMENSION);
            b = putUuid(b, d.hostGuid());
            b = putString(b, d.chartId());
            b = putString(b, d.id());
            b = putString(b, d.name());
            b = putString(b, d.algorithm());
            b = ensure(b, 20).putLong(d.multiplier()).putLong(d.divisor()).putInt(d.flags());
        } else if (rec instanceof HostRemoved r) {
            b = put(b, (byte) TYPE_HOST_REMOVED);
            b = putUuid(b, r.machineGuid());
        } else {
            throw new IllegalArgumentException("not a metadata record: " + rec);
        }
        int len = b.position() - 4;
        b.putInt(0, len);
        CRC32C crc = new CRC32C();
        crc.update(b.array(), 0, b.position());
        b = ensure(b, 4).putInt((int) crc.getValue());
        b.flip();
        return b;
    }

    static Object decode(int type, ByteBuffer p) throws BadRecordException {
        try {
            switch (type) {
                case TYPE_HOST: {
                    UUID g = uuid(p);
                    String host = string(p);
                    String os = string(p);
                    String tz = string(p);
                    int ue = p.getInt();
                    Map<String, String> labels = map(p);
                    // system_info and stream_key_digest came later: a record written before either ends
                    // after the labels, one written before the digest after system_info
                    Map<String, String> systemInfo = p.hasRemaining() ? map(p) : Map.of();
                    return new HostInfo(g, host, os, tz, ue, labels, systemInfo, p.hasRemaining() ? string(p) : "");
                }
                case TYPE_CHART: {
                    UUID g = uuid(p);
                    String id = string(p);
                    String name = string(p);
                    String title = string(p);
                    String units = string(p);
                    String family = string(p);
                    String context = string(p);
                    String chartType = string(p);
                    long prio = p.getLong();
                    int ue = p.getInt();
                    String plugin = string(p);
                    String module = string(p);
                    return new ChartInfo(g, id, name, title, units, family, context, chartType, prio, ue, plugin,
                            module, map(p));
                }
                case TYPE_DIMENSION: {
                    UUID g = uuid(p);
                    String chart = string(p);
                    String id = string(p);
                    String name = string(p);
                    String alg = string(p);
                    long mul = p.getLong();
                    long div = p.getLong();
                    int flags = p.getInt();
                    return new DimensionInfo(g, chart, id, name, alg, mul, div, flags);
                }
                case TYPE_HOST_REMOVED:
                    return new HostRemoved(uuid(p));
                default:
                    throw new BadRecordException("unknown record type " + type);
            }
        } catch (BufferUnderflowException | IllegalArgumentException | NullPointerException e) {
            throw new BadRecordException("record of type " + type + " does not decode: " + e);
        }
    }

    private static ByteBuffer ensure(ByteBuffer b, int more) {
        if (b.remaining() >= more + 4) {
            return b;
        }
        int cap = Math.max(b.capacity() * 2, b.position() + more + 8);
        if (cap > MAX_RECORD) {
            throw new IllegalArgumentException("metadata record larger than " + MAX_RECORD + " bytes");
        }
        ByteBuffer g = ByteBuffer.allocate(cap).order(ByteOrder.LITTLE_ENDIAN);
        b.flip();
        g.put(b);
        return g;
    }

    private static ByteBuffer put(ByteBuffer b, byte v) {
        return ensure(b, 1).put(v);
    }

    private static ByteBuffer putUuid(ByteBuffer b, UUID u) {
        return ensure(b, 16).putLong(u.getMostSignificantBits()).putLong(u.getLeastSignificantBits());
    }

    private static ByteBuffer putString(ByteBuffer b, String s) {
        byte[] bytes = s.getBytes(StandardCharsets.UTF_8);
        if (bytes.length > 0xFFFF) {
            throw new IllegalArgumentException("metadata string longer than 65535 bytes: " + s.substring(0, 40) + "...");
        }
        return ensure(b, 2 + bytes.length).putShort((short) bytes.length).put(bytes);
    }

    private static ByteBuffer putMap(ByteBuffer b, Map<String, String> m) {
        b = ensure(b, 2).putShort((short) m.size());
        for (Map.Entry<String, String> e : m.entrySet()) {
            b = putString(b, e.getKey());
            b = putString(b, e.getValue());
        }
        return b;
    }

    private static UUID uuid(ByteBuffer p) {
        return new UUID(p.getLong(), p.getLong());
    }

    private static String string(ByteBuffer p) throws BadRecordException {
        int len = Short.toUnsignedInt(p.getShort());
        if (len > p.remaining()) {
            throw new BadRecordException("string of " + len + " bytes runs past the record");
        }
        String s = new String(p.array(), p.arrayOffset() + p.position(), len, StandardCharsets.UTF_8);
        p.position(p.position() + len);
        return s;
    }

    private static Map<String, String> map(ByteBuffer p) throws BadRecordException {
        int n = Short.toUnsignedInt(p.getShort());
        Map<String, String> m = new LinkedHashMap<>();
        for (int i = 0; i < n; i++) {
            m.put(string(p), string(p));
        }
        return m;
    }
}
