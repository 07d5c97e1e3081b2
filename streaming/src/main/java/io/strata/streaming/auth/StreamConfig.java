package io.strata.streaming.auth;

import io.strata.engine.netdata.CNumbers;
import io.strata.engine.netdata.SimplePattern;
import io.strata.streaming.config.IniException;
import io.strata.streaming.config.IniFile;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * Netdata 1.37.1's {@code stream.conf}: the {@code [stream]} sender settings, and the sections named by
 * an API key or by a child's machine GUID that a parent consults when a child connects.
 *
 * <p>All sections are read when the object is built, so {@link IniFile#unusedEntries()} on
 * {@link #ini()} afterwards lists exactly the keys Strata does not know. A section whose name is a UUID
 * can be used both ways in Netdata (the lookup is by the string the child sent), so each is read as an
 * API-key section and as a machine-GUID section; its keys are marked used for the role(s) its
 * {@code type} allows ({@code api}, {@code machine}, or both when {@code type} is absent).
 * Immutable once built; thread-safe.
 */
public final class StreamConfig {

    public static final String STREAM_SECTION = "stream";

    /**
     * Strata's bounds on what the children of one API key may make a parent hold (Netdata 1.37.1 has
     * none): {@code max hosts per api key} in {@code [stream]} (the default) and in an API-key section;
     * {@code max charts per host} and {@code max dimensions per host} in {@code [stream]}, an API-key
     * section and a machine-GUID section (the most specific wins). 0 or less: no limit.
     */
    public static final String MAX_HOSTS_PER_API_KEY = "max hosts per api key";
    public static final String MAX_CHARTS_PER_HOST = "max charts per host";
    public static final String MAX_DIMENSIONS_PER_HOST = "max dimensions per host";
    public static final long DEFAULT_MAX_HOSTS_PER_API_KEY = 10_000;
    public static final long DEFAULT_MAX_CHARTS_PER_HOST = 50_000;
    public static final long DEFAULT_MAX_DIMENSIONS_PER_HOST = 250_000;

    /**
     * The {@code [stream]} section (the sender side of this node, and the proxy defaults of received
     * hosts), with Netdata 1.37.1's defaults.
     *
     * @param enabled true only when {@code enabled = yes} <em>and</em> destination and api key are both
     *                non-empty: Netdata turns the sender off otherwise ({@link #warnings()} says so)
     */
    public record SenderSettings(boolean enabled, String destination, String apiKey, long timeoutSeconds,
            int defaultPort, long bufferSizeBytes, long reconnectDelaySeconds, long initialClockResyncIterations,
            boolean enableCompression, String sendChartsMatching, String caPath, String caFile,
            boolean sslSkipCertificateVerification) {

        public static final long DEFAULT_TIMEOUT_SECONDS = 600;
        public static final int DEFAULT_PORT = 19999;
        public static final long DEFAULT_BUFFER_SIZE_BYTES = 10L * 1024 * 1024;
        public static final long DEFAULT_RECONNECT_DELAY_SECONDS = 5;
        public static final long DEFAULT_INITIAL_CLOCK_RESYNC_ITERATIONS = 60;
        public static final String DEFAULT_CA_PATH = "/etc/ssl/certs/";
        public static final String DEFAULT_CA_FILE = "/etc/ssl/certs/certs.pem";
    }

    /**
     * A section read as an API key ({@code [<api key>]}). Values not in the file are the inherited
     * defaults: the {@code [stream]} section for compression and proxy, {@link HostDefaults} for the rest.
     *
     * @param type         Netdata's view of {@code type}: {@code api} when absent, {@code unknown} when empty
     * @param typeExplicit whether the file sets {@code type}
     * @param location     {@code file:line} of the section header
     */
    public record KeySection(String apiKey, String type, boolean typeExplicit, boolean enabled, String allowFrom,
            SimplePattern allowFromPattern, long defaultHistory, String defaultMemoryMode,
            HealthSetting healthEnabledByDefault, long defaultPostponeAlarmsOnConnectSeconds,
            boolean defaultProxyEnabled, String defaultProxyDestination, String defaultProxyApiKey,
            String defaultProxySendChartsMatching, boolean enableCompression, boolean enableReplication,
            long secondsToReplicate, long secondsPerReplicationStep, String location, long maxHostsPerApiKey,
            long maxChartsPerHost, long maxDimensionsPerHost) {

        /** A section with Strata's default limits. */
        public KeySection(String apiKey, String type, boolean typeExplicit, boolean enabled, String allowFrom,
                SimplePattern allowFromPattern, long defaultHistory, String defaultMemoryMode,
                HealthSetting healthEnabledByDefault, long defaultPostponeAlarmsOnConnectSeconds,
                boolean defaultProxyEnabled, String defaultProxyDestination, String defaultProxyApiKey,
                String defaultProxySendChartsMatching, boolean enableCompression, boolean enableReplication,
                long secondsToReplicate, long secondsPerReplicationStep, String location) {
            this(apiKey, type, typeExplicit, enabled, allowFrom, allowFromPattern, defaultHistory, defaultMemoryMode,
                    healthEnabledByDefault, defaultPostponeAlarmsOnConnectSeconds, defaultProxyEnabled,
                    defaultProxyDestination, defaultProxyApiKey, defaultProxySendChartsMatching, enableCompression,
                    enableReplication, secondsToReplicate, secondsPerReplicationStep, location,
                    DEFAULT_MAX_HOSTS_PER_API_KEY, DEFAULT_MAX_CHARTS_PER_HOST, DEFAULT_MAX_DIMENSIONS_PER_HOST);
        }
    }

    /**
     * A section read as a child's machine GUID ({@code [<machine guid>]}). Overrides are empty when the
     * file does not set them (the API key's value applies).
     *
     * @param type         Netdata's view of {@code type}: {@code machine} when absent, {@code unknown} when empty
     * @param typeExplicit whether the file sets {@code type}
     * @param enabled      default true (only {@code enabled = no}-like values refuse the child)
     * @param location     {@code file:line} of the section header
     */
    public record MachineSection(String machineGuid, String type, boolean typeExplicit, boolean enabled,
            String allowFrom, SimplePattern allowFromPattern, OptionalLong updateEvery, OptionalLong history,
            Optional<String> memoryMode, Optional<HealthSetting> healthEnabled,
            OptionalLong postponeAlarmsOnConnectSeconds, Optional<Boolean> proxyEnabled,
            Optional<String> proxyDestination, Optional<String> proxyApiKey,
            Optional<String> proxySendChartsMatching, Optional<Boolean> enableCompression,
            Optional<Boolean> enableReplication, OptionalLong secondsToReplicate,
            OptionalLong secondsPerReplicationStep, Optional<String> hostTags, String location,
            OptionalLong maxChartsPerHost, OptionalLong maxDimensionsPerHost) {

        /** A section that sets no limit of its own. */
        public MachineSection(String machineGuid, String type, boolean typeExplicit, boolean enabled,
                String allowFrom, SimplePattern allowFromPattern, OptionalLong updateEvery, OptionalLong history,
                Optional<String> memoryMode, Optional<HealthSetting> healthEnabled,
                OptionalLong postponeAlarmsOnConnectSeconds, Optional<Boolean> proxyEnabled,
                Optional<String> proxyDestination, Optional<String> proxyApiKey,
                Optional<String> proxySendChartsMatching, Optional<Boolean> enableCompression,
                Optional<Boolean> enableReplication, OptionalLong secondsToReplicate,
                OptionalLong secondsPerReplicationStep, Optional<String> hostTags, String location) {
            this(machineGuid, type, typeExplicit, enabled, allowFrom, allowFromPattern, updateEvery, history,
                    memoryMode, healthEnabled, postponeAlarmsOnConnectSeconds, proxyEnabled, proxyDestination,
                    proxyApiKey, proxySendChartsMatching, enableCompression, enableReplication, secondsToReplicate,
                    secondsPerReplicationStep, hostTags, location, OptionalLong.empty(), OptionalLong.empty());
        }
    }

    private final IniFile ini;
    private final HostDefaults hostDefaults;
    private final SenderSettings sender;
    /** {@code [stream]}'s limits: the defaults of API-key sections. */
    private final long maxHostsPerApiKey;
    private final long maxChartsPerHost;
    private final long maxDimensionsPerHost;
    private final Map<String, KeySection> keys;
    private final Map<String, MachineSection> machines;
    private final List<String> warnings;

    private StreamConfig(IniFile ini, HostDefaults hostDefaults) {
        this.ini = ini;
        this.hostDefaults = hostDefaults;
        List<String> problems = new ArrayList<>();
        this.sender = readSender(ini, problems);
        this.maxHostsPerApiKey = ini.getLong(STREAM_SECTION, MAX_HOSTS_PER_API_KEY, DEFAULT_MAX_HOSTS_PER_API_KEY);
        this.maxChartsPerHost = ini.getLong(STREAM_SECTION, MAX_CHARTS_PER_HOST, DEFAULT_MAX_CHARTS_PER_HOST);
        this.maxDimensionsPerHost = ini.getLong(STREAM_SECTION, MAX_DIMENSIONS_PER_HOST,
                DEFAULT_MAX_DIMENSIONS_PER_HOST);
        Map<String, KeySection> keySections = new HashMap<>();
        Map<String, MachineSection> machineSections = new HashMap<>();
        for (String section : ini.sections()) {
            if (section.equals(STREAM_SECTION)) {
                continue;
            }
            String where = ini.sectionLocation(section).orElse(ini.fileName());
            if (!Uuids.isUuid(section)) {
                problems.add(where + ": section [" + section + "] is neither [stream] nor a UUID (API key or"
                        + " machine GUID); Netdata never uses it");
                continue;
            }
            Optional<IniFile.Entry> typeEntry = ini.entry(section, "type");
            String type = typeEntry.map(IniFile.Entry::value).orElse(null);
            boolean keyRole = type == null || type.equals("api");
            boolean machineRole = type == null || type.equals("machine");
            if (!keyRole && !machineRole) {
                problems.add(typeEntry.get().location() + ": [" + section + "] type = '" + type
                        + "' is neither 'api' nor 'machine'; Netdata refuses it in both roles");
            }
            String canonical = Uuids.canonical(section);
            KeySection earlier = keySections.get(canonical);
            if (earlier != null) {
                problems.add(where + ": section [" + section + "] is the UUID of section [" + earlier.apiKey() + "] ("
                        + earlier.location() + ") in another case; UUIDs are compared in lower case, so this"
                        + " later section is the one used");
            }
            keySections.put(canonical, readKey(new Reader(ini, section, keyRole), where, problems));
            machineSections.put(canonical, readMachine(new Reader(ini, section, machineRole), where, problems));
        }
        for (IniFile.Entry lost : ini.overriddenEntries()) {
            problems.add(lost.location() + ": [" + lost.section() + "] " + lost.name()
                    + " is set again later in the section; the later value is used");
        }
        this.keys = Map.copyOf(keySections);
        this.machines = Map.copyOf(machineSections);
        this.warnings = List.copyOf(problems);
    }

    /** Reads stream.conf with Netdata's built-in host defaults. */
    public static StreamConfig from(IniFile streamConf) {
        return from(streamConf, HostDefaults.NETDATA_1_37_1);
    }

    /** Reads stream.conf; {@code hostDefaults} usually come from {@link HostDefaults#fromNetdataConf}. */
    public static StreamConfig from(IniFile streamConf, HostDefaults hostDefaults) {
        return new StreamConfig(Objects.requireNonNull(streamConf, "streamConf"),
                Objects.requireNonNull(hostDefaults, "hostDefaults"));
    }

    /** Loads and reads a stream.conf file with Netdata's built-in host defaults. */
    public static StreamConfig load(Path streamConf) throws IOException, IniException {
        return from(IniFile.load(streamConf));
    }

    public SenderSettings sender() {
        return sender;
    }

    /** The section named {@code apiKey} in any case, read as an API key (any UUID-named section). */
    public Optional<KeySection> apiKey(String apiKey) {
        return Optional.ofNullable(apiKey == null ? null : keys.get(Uuids.canonical(apiKey)));
    }

    /** The section named {@code machineGuid} in any case, read as a machine GUID (any UUID-named section). */
    public Optional<MachineSection> machine(String machineGuid) {
        return Optional.ofNullable(machineGuid == null ? null : machines.get(Uuids.canonical(machineGuid)));
    }

    /** Every UUID-named section read as an API key, in no particular order. */
    public List<KeySection> apiKeys() {
        return List.copyOf(keys.values());
    }

    /** Every UUID-named section read as a machine GUID, in no particular order. */
    public List<MachineSection> machines() {
        return List.copyOf(machines.values());
    }

    /** Whether any API-key section lets children in: the node then acts as a parent. */
    public boolean hasEnabledApiKeys() {
        for (KeySection k : keys.values()) {
            if (k.enabled() && "api".equals(k.type())) {
                return true;
            }
        }
        return false;
    }

    public HostDefaults hostDefaults() {
        return hostDefaults;
    }

    /** The parsed file (for {@link IniFile#unusedEntries()}). */
    public IniFile ini() {
        return ini;
    }

    /**
     * Things Netdata would accept silently but that are probably mistakes, each starting with
     * {@code file:line:}. Unknown keys are not included: see {@link IniFile#unusedEntries()}.
     */
    public List<String> warnings() {
        return warnings;
    }

    // ------------------------------------------------------------------------------------------------

    private static SenderSettings readSender(IniFile ini, List<String> problems) {
        String s = STREAM_SECTION;
        boolean enabled = ini.getBoolean(s, "enabled", false);
        String destination = ini.get(s, "destination", "");
        String apiKey = ini.get(s, "api key", "");
        if (enabled && (destination.isEmpty() || apiKey.isEmpty())) {
            problems.add(ini.peek(s, "enabled").map(IniFile.Entry::location).orElse(ini.fileName())
                    + ": [stream] enabled = yes but " + (destination.isEmpty() ? "destination" : "api key")
                    + " is empty; the sender stays disabled (as in Netdata)");
            enabled = false;
        }
        long timeout = ini.getLong(s, "timeout seconds", SenderSettings.DEFAULT_TIMEOUT_SECONDS);
        long port = ini.getLong(s, "default port", SenderSettings.DEFAULT_PORT);
        if (port < 1 || port > 65535) {
            problems.add(ini.peek(s, "default port").map(IniFile.Entry::location).orElse(ini.fileName())
                    + ": [stream] default port = " + port + " is not a TCP port; using "
                    + SenderSettings.DEFAULT_PORT);
            port = SenderSettings.DEFAULT_PORT;
        }
        long buffer = ini.getLong(s, "buffer size bytes", SenderSettings.DEFAULT_BUFFER_SIZE_BYTES);
        long reconnect = ini.getLong(s, "reconnect delay seconds", SenderSettings.DEFAULT_RECONNECT_DELAY_SECONDS);
        long resync = ini.getLong(s, "initial clock resync iterations",
                SenderSettings.DEFAULT_INITIAL_CLOCK_RESYNC_ITERATIONS);
        boolean compression = ini.getBoolean(s, "enable compression", true);
        String charts = ini.get(s, "send charts matching", "*");
        String caPath = ini.get(s, "CApath", SenderSettings.DEFAULT_CA_PATH);
        String caFile = ini.get(s, "CAfile", SenderSettings.DEFAULT_CA_FILE);
        boolean skipVerification = ini.getBoolean(s, "ssl skip certificate verification", false);
        return new SenderSettings(enabled, destination, apiKey, timeout, (int) port, buffer, reconnect, resync,
                compression, charts, caPath, caFile, skipVerification);
    }

    private KeySection readKey(Reader r, String where, List<String> problems) {
        String type = r.raw("type");
        String effectiveType = type == null ? "api" : (type.isEmpty() ? "unknown" : type);
        String allowFrom = r.string("allow from", "*");
        return new KeySection(r.section, effectiveType, type != null,
                r.bool("enabled", false),
                allowFrom, SimplePattern.parse(allowFrom),
                r.number("default history", hostDefaults.history()),
                r.memoryMode("default memory mode", hostDefaults.memoryMode(), problems),
                r.health("health enabled by default", hostDefaults.health(), problems),
                r.number("default postpone alarms on connect seconds", 60),
                r.bool("default proxy enabled", sender.enabled()),
                r.string("default proxy destination", sender.destination()),
                r.string("default proxy api key", sender.apiKey()),
                r.string("default proxy send charts matching", sender.sendChartsMatching()),
                r.bool("enable compression", sender.enableCompression()),
                r.bool("enable replication", hostDefaults.enableReplication()),
                r.number("seconds to replicate", hostDefaults.secondsToReplicate()),
                r.number("seconds per replication step", hostDefaults.secondsPerReplicationStep()),
                where,
                r.number(MAX_HOSTS_PER_API_KEY, maxHostsPerApiKey),
                r.number(MAX_CHARTS_PER_HOST, maxChartsPerHost),
                r.number(MAX_DIMENSIONS_PER_HOST, maxDimensionsPerHost));
    }

    private MachineSection readMachine(Reader r, String where, List<String> problems) {
        String type = r.raw("type");
        String effectiveType = type == null ? "machine" : (type.isEmpty() ? "unknown" : type);
        String allowFrom = r.string("allow from", "*");
        String memoryMode = r.raw("memory mode");
        if (memoryMode != null) {
            memoryMode = r.memoryMode("memory mode", memoryMode, problems);
        }
        String health = r.raw("health enabled");
        return new MachineSection(r.section, effectiveType, type != null,
                r.bool("enabled", true),
                allowFrom, SimplePattern.parse(allowFrom),
                r.optionalNumber("update every"),
                r.optionalNumber("history"),
                Optional.ofNullable(memoryMode),
                health == null ? Optional.empty()
                        : Optional.ofNullable(r.health("health enabled", null, problems)),
                r.optionalNumber("postpone alarms on connect seconds"),
                r.optionalBool("proxy enabled"),
                Optional.ofNullable(r.raw("proxy destination")),
                Optional.ofNullable(r.raw("proxy api key")),
                Optional.ofNullable(r.raw("proxy send charts matching")),
                r.optionalBool("enable compression"),
                r.optionalBool("enable replication"),
                r.optionalNumber("seconds to replicate"),
                r.optionalNumber("seconds per replication step"),
                Optional.ofNullable(r.raw("host tags")),
                where,
                r.optionalNumber(MAX_CHARTS_PER_HOST),
                r.optionalNumber(MAX_DIMENSIONS_PER_HOST));
    }

    /** Reads one section, marking what it reads as used only when the section can serve that role. */
    private static final class Reader {
        final IniFile ini;
        final String section;
        final boolean mark;

        Reader(IniFile ini, String section, boolean mark) {
            this.ini = ini;
            this.section = section;
            this.mark = mark;
        }

        Optional<IniFile.Entry> entry(String name) {
            return mark ? ini.entry(section, name) : ini.peek(section, name);
        }

        String raw(String name) {
            return entry(name).map(IniFile.Entry::value).orElse(null);
        }

        String string(String name, String def) {
            String value = raw(name);
            return value == null ? def : value;
        }

        boolean bool(String name, boolean def) {
            String value = raw(name);
            return value == null ? def : IniFile.isNetdataTrue(value);
        }

        Optional<Boolean> optionalBool(String name) {
            String value = raw(name);
            return value == null ? Optional.empty() : Optional.of(IniFile.isNetdataTrue(value));
        }

        long number(String name, long def) {
            String value = raw(name);
            return value == null ? def : CNumbers.strtoll(value);
        }

        OptionalLong optionalNumber(String name) {
            String value = raw(name);
            return value == null ? OptionalLong.empty()
                    : OptionalLong.of(CNumbers.strtoll(value));
        }

        String memoryMode(String name, String def, List<String> problems) {
            Optional<IniFile.Entry> entry = entry(name);
            if (entry.isEmpty()) {
                return def;
            }
            String value = entry.get().value();
            if (!HostDefaults.isKnownMemoryMode(value) && mark) {
                problems.add(entry.get().location() + ": [" + section + "] " + name + " = '" + value
                        + "' is not ram/save/map/none/alloc/dbengine; Netdata uses 'save'");
            }
            return HostDefaults.memoryModeName(value);
        }

        HealthSetting health(String name, HealthSetting def, List<String> problems) {
            Optional<IniFile.Entry> entry = entry(name);
            if (entry.isEmpty()) {
                return def;
            }
            HealthSetting setting = HealthSetting.fromConfigValue(entry.get().value());
            if (setting == null) {
                if (mark) {
                    problems.add(entry.get().location() + ": [" + section + "] " + name + " = '"
                            + entry.get().value() + "' is not yes/no/auto; Netdata ignores it");
                }
                return def;
            }
            return setting;
        }
    }
}
