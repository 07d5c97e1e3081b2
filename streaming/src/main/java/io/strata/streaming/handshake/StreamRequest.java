package io.strata.streaming.handshake;

import io.netty.buffer.ByteBuf;
import io.strata.engine.netdata.CNumbers;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.nio.charset.CharacterCodingException;

/**
 * The child's {@code STREAM} request (docs/protocol/netdata-stream.md §2.1), immutable.
 *
 * <p><b>Parent side</b> ({@link #parse}): the values are what Netdata 1.37.1's receiver would use, with
 * its defaults for what is missing: {@code os} and {@code timezone} "unknown", {@code abbrev_timezone}
 * "UTC", {@code utc_offset} 0, {@code hops} 1, {@code registry_hostname} = hostname, {@code tags} "",
 * numbers 0. Missing {@code key}, {@code hostname}, {@code machine_guid} are "" (the authoriser refuses
 * them). {@code update_every} is 0 when absent or unreadable, meaning "the parent's own". A parameter
 * given twice: the last one wins, as in 1.37.1. {@code ver} is the raw number (low 32 bits, as C
 * passes it on) or -1 when absent.
 *
 * <p><b>Child side</b> ({@link #builder()}, {@link #encode()}): produces exactly the bytes a 1.37.1
 * child sends: the fixed parameter order, the five {@code NETDATA_SYSTEM_*} values Netdata URL-encodes,
 * every other value raw (spaces included), the two headers and CRLF line ends.
 */
public final class StreamRequest {

    /** Netdata's request and header buffers: the whole head must fit. */
    public static final int MAX_HEAD_BYTES = 8192;

    /** The system-info parameters a 1.37.1 child sends, in its order (before NETDATA_PROTOCOL_VERSION). */
    public static final List<String> SYSTEM_INFO_NAMES = List.of(
            "NETDATA_INSTANCE_CLOUD_TYPE",
            "NETDATA_INSTANCE_CLOUD_INSTANCE_TYPE",
            "NETDATA_INSTANCE_CLOUD_INSTANCE_REGION",
            "NETDATA_SYSTEM_OS_NAME",
            "NETDATA_SYSTEM_OS_ID",
            "NETDATA_SYSTEM_OS_ID_LIKE",
            "NETDATA_SYSTEM_OS_VERSION",
            "NETDATA_SYSTEM_OS_VERSION_ID",
            "NETDATA_SYSTEM_OS_DETECTION",
            "NETDATA_HOST_IS_K8S_NODE",
            "NETDATA_SYSTEM_KERNEL_NAME",
            "NETDATA_SYSTEM_KERNEL_VERSION",
            "NETDATA_SYSTEM_ARCHITECTURE",
            "NETDATA_SYSTEM_VIRTUALIZATION",
            "NETDATA_SYSTEM_VIRT_DETECTION",
            "NETDATA_SYSTEM_CONTAINER",
            "NETDATA_SYSTEM_CONTAINER_DETECTION",
            "NETDATA_CONTAINER_OS_NAME",
            "NETDATA_CONTAINER_OS_ID",
            "NETDATA_CONTAINER_OS_ID_LIKE",
            "NETDATA_CONTAINER_OS_VERSION",
            "NETDATA_CONTAINER_OS_VERSION_ID",
            "NETDATA_CONTAINER_OS_DETECTION",
            "NETDATA_SYSTEM_CPU_LOGICAL_CPU_COUNT",
            "NETDATA_SYSTEM_CPU_FREQ",
            "NETDATA_SYSTEM_TOTAL_RAM",
            "NETDATA_SYSTEM_TOTAL_DISK_SIZE");

    /** The only values a 1.37.1 child URL-encodes. */
    private static final Set<String> URL_ENCODED = Set.of(
            "NETDATA_SYSTEM_OS_NAME",
            "NETDATA_SYSTEM_OS_ID",
            "NETDATA_SYSTEM_OS_VERSION",
            "NETDATA_SYSTEM_KERNEL_NAME",
            "NETDATA_SYSTEM_KERNEL_VERSION");

    public static final String PROTOCOL_VERSION_NAME = "NETDATA_PROTOCOL_VERSION";

    private static final byte[] STREAM_PREFIX = {'S', 'T', 'R', 'E', 'A', 'M', ' '};
    private static final byte[] HTTP_MARK = {' ', 'H', 'T', 'T', 'P', '/'};
    private static final byte[] CRLF = {'\r', '\n'};

    private final String key;
    private final String hostname;
    private final String registryHostname;
    private final String machineGuid;
    private final int updateEvery;
    private final String os;
    private final String timezone;
    private final String abbrevTimezone;
    private final int utcOffset;
    private final int hops;
    private final int mlCapable;
    private final int mlEnabled;
    private final int mcVersion;
    private final String tags;
    private final long ver;
    private final boolean protocolVersion1_1;
    private final Map<String, String> systemInfo;
    private final String programName;
    private final String programVersion;
    private final List<String> ignoredParameters;

    private StreamRequest(Builder b, List<String> ignoredParameters) {
        this.key = b.key;
        this.hostname = b.hostname;
        this.registryHostname = b.registryHostname == null ? b.hostname : b.registryHostname;
        this.machineGuid = b.machineGuid;
        this.updateEvery = b.updateEvery;
        this.os = b.os;
        this.timezone = b.timezone;
        this.abbrevTimezone = b.abbrevTimezone;
        this.utcOffset = b.utcOffset;
        this.hops = b.hops;
        this.mlCapable = b.mlCapable;
        this.mlEnabled = b.mlEnabled;
        this.mcVersion = b.mcVersion;
        this.tags = b.tags;
        this.ver = b.ver;
        this.protocolVersion1_1 = b.protocolVersion1_1;
        this.systemInfo = Collections.unmodifiableMap(new LinkedHashMap<>(b.systemInfo));
        this.programName = b.programName;
        this.programVersion = b.programVersion;
        this.ignoredParameters = List.copyOf(ignoredParameters);
    }

    // ------------------------------------------------------------------------------------------------
    // accessors

    /** {@code key}: the API key, as received ("" when absent). */
    public String key() {
        return key;
    }

    /** {@code hostname} ("" when absent). */
    public String hostname() {
        return hostname;
    }

    /** {@code registry_hostname}; the hostname when absent. */
    public String registryHostname() {
        return registryHostname;
    }

    /** {@code machine_guid} exactly as received ("" when absent); not normalised. */
    public String machineGuid() {
        return machineGuid;
    }

    /** {@code update_every}; 0 when absent (use the parent's own {@code [db] update every}). */
    public int updateEvery() {
        return updateEvery;
    }

    public String os() {
        return os;
    }

    public String timezone() {
        return timezone;
    }

    public String abbrevTimezone() {
        return abbrevTimezone;
    }

    /** Seconds east of UTC. */
    public int utcOffset() {
        return utcOffset;
    }

    /** Distance from the origin agent: 1 for a host's own agent (0..65535, as Netdata's uint16). */
    public int hops() {
        return hops;
    }

    public int mlCapable() {
        return mlCapable;
    }

    public int mlEnabled() {
        return mlEnabled;
    }

    public int mcVersion() {
        return mcVersion;
    }

    /** Host tags ("" when absent or empty). */
    public String tags() {
        return tags;
    }

    /** The raw {@code ver} number (0..2^32-1), or -1 when the request has none. */
    public long ver() {
        return ver;
    }

    /** Whether {@code NETDATA_PROTOCOL_VERSION} (1.37.1 sends {@code 1.1}) was present. */
    public boolean protocolVersion1_1() {
        return protocolVersion1_1;
    }

    /**
     * The {@code NETDATA_*} parameters other than {@code NETDATA_PROTOCOL_VERSION}, in request order,
     * named as sent (Netdata stores {@code NETDATA_SYSTEM_OS_*} as {@code NETDATA_HOST_OS_*}, see
     * {@link #storedSystemInfoName}).
     */
    public Map<String, String> systemInfo() {
        return systemInfo;
    }

    /** From {@code User-Agent: name/version}; "" when absent. */
    public String programName() {
        return programName;
    }

    /** From {@code User-Agent: name/version}; "" when absent. */
    public String programVersion() {
        return programVersion;
    }

    /** Names of parameters that are neither known nor {@code NETDATA_*} (Netdata logs them as not used). */
    public List<String> ignoredParameters() {
        return ignoredParameters;
    }

    /**
     * The version number the parent negotiates from: {@code ver} when present, else 1 when
     * {@code NETDATA_PROTOCOL_VERSION} is present, else 0. Pass it to {@link Capabilities#normalise}.
     */
    public long offeredVersion() {
        if (ver >= 0) {
            return ver;
        }
        return protocolVersion1_1 ? 1 : 0;
    }

    /** How Netdata's receiver names a system-info parameter when it stores it on the host. */
    public static String storedSystemInfoName(String name) {
        if (name.startsWith("NETDATA_SYSTEM_OS_")) {
            return "NETDATA_HOST_OS_" + name.substring("NETDATA_SYSTEM_OS_".length());
        }
        return name;
    }

    // ------------------------------------------------------------------------------------------------
    // parent side

    /**
     * True when the readable bytes start with {@code "STREAM "} (7 bytes; fewer readable bytes: false).
     * Does not move the reader index.
     */
    public static boolean looksLikeStream(ByteBuf firstBytes) {
        if (firstBytes == null || firstBytes.readableBytes() < STREAM_PREFIX.length) {
            return false;
        }
        int at = firstBytes.readerIndex();
        for (int i = 0; i < STREAM_PREFIX.length; i++) {
            if (firstBytes.getByte(at + i) != STREAM_PREFIX[i]) {
                return false;
            }
        }
        return true;
    }

    /**
     * Parses a request head the way a 1.37.1 parent does.
     *
     * <ol>
     *   <li>the head must start with {@code "STREAM "}, end with {@code \r\n\r\n}, be at most
     *       {@value #MAX_HEAD_BYTES} bytes and contain no NUL byte;</li>
     *   <li>the query is everything up to the first {@code " HTTP/"} (values may contain raw spaces);</li>
     *   <li>the whole query is URL-decoded first ({@code %xx}, {@code +}); as in Netdata a decoded byte
     *       that is not printable ASCII becomes a space, and a {@code %} without two characters after it
     *       is dropped;</li>
     *   <li>then split at {@code &}, each item at its first {@code =}; items with an empty name or empty
     *       value are skipped; unknown names are skipped;</li>
     *   <li>numbers are read as C's {@code strtoul}/{@code strtol} with base 0 (never an error);</li>
     *   <li>header lines {@code Name: value}: only {@code User-Agent} (any case) is used.</li>
     * </ol>
     * Bytes are UTF-8 (malformed sequences become U+FFFD).
     *
     * @param head the request up to and including the empty line
     * @param len  number of bytes of {@code head} to read
     */
    public static StreamRequest parse(byte[] head, int len) throws StreamRequestException {
        Objects.requireNonNull(head, "head");
        Objects.checkFromIndexSize(0, len, head.length);
        if (len > MAX_HEAD_BYTES) {
            throw new StreamRequestException("request head is " + len + " bytes; a 1.37.1 parent accepts at most "
                    + MAX_HEAD_BYTES);
        }
        if (!regionEquals(head, 0, len, STREAM_PREFIX)) {
            throw new StreamRequestException("not a STREAM request: it starts with '"
                    + printable(head, 0, Math.min(len, 16)) + "'");
        }
        for (int i = 0; i < len; i++) {
            if (head[i] == 0) {
                throw new StreamRequestException("request head has a NUL byte at offset " + i);
            }
        }
        if (len < 4 || head[len - 4] != '\r' || head[len - 3] != '\n' || head[len - 2] != '\r'
                || head[len - 1] != '\n') {
            throw new StreamRequestException("request head does not end with an empty line (\\r\\n\\r\\n)");
        }
        int queryStart = STREAM_PREFIX.length;
        int httpMark = indexOf(head, queryStart, len, HTTP_MARK);
        if (httpMark < 0) {
            throw new StreamRequestException("no ' HTTP/' after the query of the STREAM request");
        }

        Builder b = new Builder(true);
        List<String> ignored = new ArrayList<>();
        byte[] decoded = urlDecode(head, queryStart, httpMark);
        int itemStart = 0;
        while (itemStart <= decoded.length) {
            int itemEnd = indexOf(decoded, itemStart, decoded.length, (byte) '&');
            if (itemEnd < 0) {
                itemEnd = decoded.length;
            }
            int equals = indexOf(decoded, itemStart, itemEnd, (byte) '=');
            if (equals > itemStart && equals + 1 < itemEnd) {
                String name = utf8(decoded, itemStart, equals);
                String value = utf8(decoded, equals + 1, itemEnd);
                b.applyReceived(name, value, ignored);
            }
            itemStart = itemEnd + 1;
        }

        String userAgent = userAgent(head, httpMark, len);
        if (userAgent != null && !userAgent.isEmpty()) {
            int slash = userAgent.indexOf('/');
            if (slash < 0) {
                b.programName = userAgent;
            } else {
                b.programName = userAgent.substring(0, slash);
                b.programVersion = userAgent.substring(slash + 1);
            }
        }
        return new StreamRequest(b, ignored);
    }

    /* Header lines start after the line holding " HTTP/"; the last User-Agent wins. */
    private static String userAgent(byte[] head, int httpMark, int len) {
        int lineEnd = indexOf(head, httpMark, len, CRLF);
        String found = null;
        int lineStart = lineEnd + 2;
        while (lineEnd >= 0 && lineStart < len) {
            lineEnd = indexOf(head, lineStart, len, CRLF);
            if (lineEnd < 0 || lineEnd == lineStart) {
                break;
            }
            int colon = indexOf(head, lineStart, lineEnd, (byte) ':');
            if (colon > lineStart) {
                String name = utf8(head, lineStart, colon);
                if (name.equalsIgnoreCase("User-Agent")) {
                    int valueStart = colon + 1;
                    while (valueStart < lineEnd && head[valueStart] == ' ') {
                        valueStart++;
                    }
                    found = utf8(head, valueStart, lineEnd);
                }
            }
            lineStart = lineEnd + 2;
        }
        return found;
    }

    /*
     * Netdata's url_decode_r(): '%' and the next two characters become one byte computed the way its
     * from_hex() does (garbage in, garbage out, no error); a decoded byte outside printable ASCII becomes
     * a space (Netdata's guard against header injection); '+' becomes a space; a '%' that is not
     * followed by two characters is dropped.
     */
    static byte[] urlDecode(byte[] in, int from, int to) {
        byte[] out = new byte[to - from];
        int o = 0;
        int i = from;
        while (i < to) {
            byte c = in[i];
            if (c == '%') {
                if (i + 2 < to) {
                    int value = (fromHex(in[i + 1]) << 4 | fromHex(in[i + 2])) & 0xFF;
                    out[o++] = value >= 0x20 && value <= 0x7E ? (byte) value : (byte) ' ';
                    i += 2;
                }
            } else if (c == '+') {
                out[o++] = ' ';
            } else {
                out[o++] = c;
            }
            i++;
        }
        return Arrays.copyOf(out, o);
    }

    private static int fromHex(byte signedChar) {
        int c = signedChar;
        if (c >= '0' && c <= '9') {
            return c - '0';
        }
        int lower = c >= 'A' && c <= 'Z' ? c + ('a' - 'A') : c;
        return lower - 'a' + 10;
    }

    // ------------------------------------------------------------------------------------------------
    // child side

    /** A builder with the values a Java child would send by default (see {@link Builder}). */
    public static Builder builder() {
        return new Builder(false);
    }

    /**
     * A builder holding every value of this request (the {@code NETDATA_*} values among
     * {@link #SYSTEM_INFO_NAMES}; others are dropped), e.g. for a proxy that forwards a received host with
     * its own key and {@code hops + 1}. Note that a parsed value is the URL-decoded one: a raw {@code +}
     * the child sent (such as {@code NETDATA_SYSTEM_CPU_FREQ=2.299e+09}) is now a space.
     */
    public Builder toBuilder() {
        Builder b = new Builder(false);
        b.key = key;
        b.hostname = hostname;
        b.registryHostname = registryHostname;
        b.machineGuid = machineGuid;
        b.updateEvery = updateEvery;
        b.os = os;
        b.timezone = timezone;
        b.abbrevTimezone = abbrevTimezone;
        b.utcOffset = utcOffset;
        b.hops = hops;
        b.mlCapable = mlCapable;
        b.mlEnabled = mlEnabled;
        b.mcVersion = mcVersion;
        b.tags = tags;
        b.ver = ver;
        b.protocolVersion1_1 = protocolVersion1_1;
        systemInfo.forEach((name, value) -> {
            if (SYSTEM_INFO_NAMES.contains(name)) {
                b.systemInfo.put(name, value);
            }
        });
        b.programName = programName;
        b.programVersion = programVersion;
        return b;
    }

    /**
     * The request bytes, exactly as a 1.37.1 child writes them: parameters in its order with
     * {@code key} .. {@code tags}, {@code ver} (omitted only when -1), the 27 {@link #SYSTEM_INFO_NAMES}
     * (missing ones empty; other {@code NETDATA_*} names are not sent), {@code NETDATA_PROTOCOL_VERSION=1.1}
     * when {@link #protocolVersion1_1()}, then {@code " HTTP/1.1\r\n"}, {@code User-Agent: name/version},
     * {@code Accept: *}{@code /*} and the empty line.
     *
     * @throws IllegalStateException when the result is longer than {@value #MAX_HEAD_BYTES} bytes or a
     *                               value would break the request (CR, LF, NUL or {@code " HTTP/"})
     */
    public byte[] encode() {
        ByteArrayOutputStream out = new ByteArrayOutputStream(1500);
        write(out, "STREAM ");
        param(out, "key", key, true);
        param(out, "hostname", hostname, false);
        param(out, "registry_hostname", registryHostname, false);
        param(out, "machine_guid", machineGuid, false);
        param(out, "update_every", Integer.toString(updateEvery), false);
        param(out, "os", os, false);
        param(out, "timezone", timezone, false);
        param(out, "abbrev_timezone", abbrevTimezone, false);
        param(out, "utc_offset", Integer.toString(utcOffset), false);
        param(out, "hops", Integer.toString(hops), false);
        param(out, "ml_capable", Integer.toString(mlCapable), false);
        param(out, "ml_enabled", Integer.toString(mlEnabled), false);
        param(out, "mc_version", Integer.toString(mcVersion), false);
        param(out, "tags", tags, false);
        if (ver >= 0) {
            param(out, "ver", Long.toString(ver), false);
        }
        for (String name : SYSTEM_INFO_NAMES) {
            String value = systemInfo.getOrDefault(name, "");
            param(out, name, URL_ENCODED.contains(name) ? urlEncode(value) : value, false);
        }
        if (protocolVersion1_1) {
            param(out, PROTOCOL_VERSION_NAME, "1.1", false);
        }
        write(out, " HTTP/1.1\r\n");
        write(out, "User-Agent: " + checked("User-Agent", programName + "/" + programVersion) + "\r\n");
        write(out, "Accept: */*\r\n\r\n");
        byte[] bytes = out.toByteArray();
        if (bytes.length > MAX_HEAD_BYTES) {
            throw new IllegalStateException("STREAM request would be " + bytes.length
                    + " bytes; a 1.37.1 parent reads at most " + MAX_HEAD_BYTES);
        }
        return bytes;
    }

    private static void param(ByteArrayOutputStream out, String name, String value, boolean first) {
        if (!first) {
            out.write('&');
        }
        write(out, name);
        out.write('=');
        write(out, checked(name, value));
    }

    private static String checked(String name, String value) {
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            if (c == '\r' || c == '\n' || c == 0) {
                throw new IllegalStateException("value of " + name + " contains CR, LF or NUL at index " + i);
            }
        }
        if (value.contains(" HTTP/")) {
            throw new IllegalStateException("value of " + name + " contains ' HTTP/', which ends the query");
        }
        return value;
    }

    /* Netdata's url_encode(): alphanumerics and -_.~ kept, space to '+', all else %xx (lower-case hex). */
    static String urlEncode(String value) {
        byte[] bytes = value.getBytes(StandardCharsets.UTF_8);
        StringBuilder out = new StringBuilder(bytes.length * 3);
        for (byte raw : bytes) {
            int c = raw & 0xFF;
            if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '_'
                    || c == '.' || c == '~') {
                out.append((char) c);
            } else if (c == ' ') {
                out.append('+');
            } else {
                out.append('%').append(Character.forDigit(c >> 4, 16)).append(Character.forDigit(c & 15, 16));
            }
        }
        return out.toString();
    }

    private static void write(ByteArrayOutputStream out, String text) {
        byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
        out.write(bytes, 0, bytes.length);
    }

    @Override
    public String toString() {
        return "StreamRequest[hostname=" + hostname + ", machine_guid=" + machineGuid + ", ver=" + ver
                + ", hops=" + hops + ", program=" + programName + "/" + programVersion + "]";
    }

    // ------------------------------------------------------------------------------------------------

    /**
     * Builds a request for a child to {@link #encode()}. Defaults are what a 1.37.1 agent sends for
     * itself: {@code update_every} 1, {@code os} "linux", {@code timezone} "Etc/UTC", {@code abbrev_timezone}
     * "UTC", {@code hops} 1, {@code mc_version} 1, {@code ver} {@link Capabilities#NETDATA_1_37_1},
     * {@code NETDATA_PROTOCOL_VERSION=1.1}, {@code User-Agent: netdata/v1.37.1}. Key, hostname and machine
     * GUID start empty. Not thread-safe.
     */
    public static final class Builder {
        private String key = "";
        private String hostname = "";
        private String registryHostname;
        private String machineGuid = "";
        private int updateEvery;
        private String os;
        private String timezone;
        private String abbrevTimezone = "UTC";
        private int utcOffset;
        private int hops = 1;
        private int mlCapable;
        private int mlEnabled;
        private int mcVersion;
        private String tags = "";
        private long ver;
        private boolean protocolVersion1_1;
        private final Map<String, String> systemInfo = new LinkedHashMap<>();
        private String programName = "";
        private String programVersion = "";

        private Builder(boolean parentDefaults) {
            if (parentDefaults) {
                os = "unknown";
                timezone = "unknown";
                ver = -1;
            } else {
                updateEvery = 1;
                os = "linux";
                timezone = "Etc/UTC";
                mcVersion = 1;
                ver = Capabilities.NETDATA_1_37_1;
                protocolVersion1_1 = true;
                programName = "netdata";
                programVersion = "v1.37.1";
            }
        }

        /* 1.37.1's receiver: the last occurrence of a parameter wins. */
        private void applyReceived(String name, String value, List<String> ignored) {
            switch (name) {
                case "key":
                    key = value;
                    break;
                case "hostname":
                    hostname = value;
                    break;
                case "registry_hostname":
                    registryHostname = value;
                    break;
                case "machine_guid":
                    machineGuid = value;
                    break;
                case "update_every":
                    updateEvery = (int) CNumbers.strtoul(value);
                    break;
                case "os":
                    os = value;
                    break;
                case "timezone":
                    timezone = value;
                    break;
                case "abbrev_timezone":
                    abbrevTimezone = value;
                    break;
                case "utc_offset":
                    utcOffset = (int) CNumbers.strtol(value);
                    break;
                case "hops":
                    hops = (int) (CNumbers.strtoul(value) & 0xFFFF);
                    break;
                case "ml_capable":
                    mlCapable = (int) CNumbers.strtoul(value);
                    break;
                case "ml_enabled":
                    mlEnabled = (int) CNumbers.strtoul(value);
                    break;
                case "mc_version":
                    mcVersion = (int) CNumbers.strtoul(value);
                    break;
                case "tags":
                    tags = value;
                    break;
                case "ver":
                    ver = CNumbers.strtoul(value) & 0xFFFF_FFFFL;
                    break;
                case PROTOCOL_VERSION_NAME:
                    protocolVersion1_1 = true;
                    break;
                default:
                    if (name.startsWith("NETDATA_")) {
                        systemInfo.put(name, value);
                    } else {
                        ignored.add(name);
                    }
                    break;
            }
        }

        public Builder key(String key) {
            this.key = Objects.requireNonNull(key, "key");
            return this;
        }

        public Builder hostname(String hostname) {
            this.hostname = Objects.requireNonNull(hostname, "hostname");
            return this;
        }

        /** Defaults to the hostname. */
        public Builder registryHostname(String registryHostname) {
            this.registryHostname = Objects.requireNonNull(registryHostname, "registryHostname");
            return this;
        }

        public Builder machineGuid(String machineGuid) {
            this.machineGuid = Objects.requireNonNull(machineGuid, "machineGuid");
            return this;
        }

        public Builder updateEvery(int updateEvery) {
            this.updateEvery = updateEvery;
            return this;
        }

        public Builder os(String os) {
            this.os = Objects.requireNonNull(os, "os");
            return this;
        }

        public Builder timezone(String timezone) {
            this.timezone = Objects.requireNonNull(timezone, "timezone");
            return this;
        }

        public Builder abbrevTimezone(String abbrevTimezone) {
            this.abbrevTimezone = Objects.requireNonNull(abbrevTimezone, "abbrevTimezone");
            return this;
        }

        public Builder utcOffset(int utcOffset) {
            this.utcOffset = utcOffset;
            return this;
        }

        /** 1 for the agent's own host; a proxy forwarding a received host sends that host's hops + 1. */
        public Builder hops(int hops) {
            if (hops < 0 || hops > 0xFFFF) {
                throw new IllegalArgumentException("hops must be 0..65535, got " + hops);
            }
            this.hops = hops;
            return this;
        }

        public Builder mlCapable(int mlCapable) {
            this.mlCapable = mlCapable;
            return this;
        }

        public Builder mlEnabled(int mlEnabled) {
            this.mlEnabled = mlEnabled;
            return this;
        }

        public Builder mcVersion(int mcVersion) {
            this.mcVersion = mcVersion;
            return this;
        }

        public Builder tags(String tags) {
            this.tags = Objects.requireNonNull(tags, "tags");
            return this;
        }

        /** The capability bits (or old version number) to offer; -1 omits {@code ver}. */
        public Builder ver(long ver) {
            if (ver < -1 || ver > 0xFFFF_FFFFL) {
                throw new IllegalArgumentException("ver must be -1 or 0..2^32-1, got " + ver);
            }
            this.ver = ver;
            return this;
        }

        public Builder protocolVersion1_1(boolean present) {
            this.protocolVersion1_1 = present;
            return this;
        }

        /** One of {@link #SYSTEM_INFO_NAMES}; the value is sent raw or URL-encoded as 1.37.1 does. */
        public Builder systemInfo(String name, String value) {
            if (!SYSTEM_INFO_NAMES.contains(name)) {
                throw new IllegalArgumentException("a 1.37.1 child does not send system info '" + name + "'");
            }
            systemInfo.put(name, Objects.requireNonNull(value, "value"));
            return this;
        }

        public Builder programName(String programName) {
            this.programName = Objects.requireNonNull(programName, "programName");
            return this;
        }

        public Builder programVersion(String programVersion) {
            this.programVersion = Objects.requireNonNull(programVersion, "programVersion");
            return this;
        }

        public StreamRequest build() {
            return new StreamRequest(this, List.of());
        }
    }

    // ------------------------------------------------------------------------------------------------
    // byte helpers

    private static boolean regionEquals(byte[] data, int at, int limit, byte[] expected) {
        if (limit - at < expected.length) {
            return false;
        }
        for (int i = 0; i < expected.length; i++) {
            if (data[at + i] != expected[i]) {
                return false;
            }
        }
        return true;
    }

    private static int indexOf(byte[] data, int from, int to, byte[] needle) {
        for (int i = from; i + needle.length <= to; i++) {
            if (regionEquals(data, i, to, needle)) {
                return i;
            }
        }
        return -1;
    }

    private static int indexOf(byte[] data, int from, int to, byte needle) {
        for (int i = from; i < to; i++) {
            if (data[i] == needle) {
                return i;
            }
        }
        return -1;
    }

    private static String utf8(byte[] data, int from, int to) {
        try {
            return StandardCharsets.UTF_8.newDecoder()
                    .onMalformedInput(CodingErrorAction.REPLACE)
                    .onUnmappableCharacter(CodingErrorAction.REPLACE)
                    .decode(ByteBuffer.wrap(data, from, to - from))
                    .toString();
        } catch (CharacterCodingException impossible) {
            // REPLACE never reports an error
            throw new IllegalStateException(impossible);
        }
    }

    private static String printable(byte[] data, int from, int to) {
        StringBuilder out = new StringBuilder();
        for (int i = from; i < to; i++) {
            int c = data[i] & 0xFF;
            if (c >= 0x20 && c < 0x7F) {
                out.append((char) c);
            } else {
                out.append(String.format("\\x%02x", c));
            }
        }
        return out.toString();
    }
}
