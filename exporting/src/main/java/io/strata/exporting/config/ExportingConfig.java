package io.strata.exporting.config;

import io.strata.engine.netdata.ConfigNumbers;
import io.strata.engine.netdata.SimplePattern;
import io.strata.streaming.config.IniException;
import io.strata.streaming.config.IniFile;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * Netdata's {@code exporting.conf}, read from a node's configuration directory: {@code [exporting:global]}
 * and every {@code [prometheus_remote_write:NAME]} / {@code [prometheus_remote_write:https:NAME]} instance,
 * with Netdata 1.37.1's keys, defaults and look-up order (an instance key missing from its section is
 * taken from {@code [exporting:global]}).
 *
 * <p>As for {@code netdata.conf}: an unknown key or section is reported with its file and line and
 * ignored; a value that cannot be used stops the start with a message naming file, line, section and key.
 * Keys that touch security are never ignored: {@code username}/{@code password} are sent as HTTP basic
 * authentication, {@code :https} uses TLS with certificate and host-name checks, and a password without
 * a user name, or credentials over plain HTTP to a non-loopback destination, stop the start.
 */
public record ExportingConfig(boolean globallyEnabled, List<TargetConfig> targets, List<String> warnings) {

    public static final String FILE = "exporting.conf";
    static final String GLOBAL = "exporting:global";
    static final String CONNECTOR = "prometheus_remote_write";

    /** Netdata's defaults ({@code exporting/read_config.c}). */
    static final int DEFAULT_UPDATE_EVERY = 10;
    static final int DEFAULT_BUFFER_ON_FAILURES = 10;
    static final int DEFAULT_TIMEOUT_MS = 10_000;
    static final String DEFAULT_PATH = "/receive";
    static final String DEFAULT_DESTINATION = "localhost";
    static final String DEFAULT_PREFIX = "netdata";
    /**
     * Strata's: about 2 MB of protobuf, 320 KB on the wire (docs/benchmarks.md); a catch-up costs a third
     * of the CPU per sample of requests of 10 000 (each request reads every page it touches again, and
     * carries every series' labels again). Far below the receivers' limits (VictoriaMetrics 32 MB,
     * Mimir 100 MiB).
     */
    static final int DEFAULT_MAX_SAMPLES_PER_REQUEST = 100_000;
    static final long DEFAULT_MAX_SAMPLES_PER_SECOND = 1_000_000;

    /** The connectors Netdata has and Strata does not: an enabled instance of one stops the start. */
    private static final List<String> OTHER_CONNECTORS = List.of("graphite", "json", "opentsdb", "kinesis", "pubsub",
            "mongodb");

    /** No {@code exporting.conf}: nothing to export. */
    public static ExportingConfig none() {
        return new ExportingConfig(false, List.of(), List.of());
    }

    public boolean exports() {
        return globallyEnabled && !targets.isEmpty();
    }

    /** Reads {@code dir/exporting.conf} when it exists; {@code nodeHostname} is Netdata's default {@code hostname}. */
    public static ExportingConfig load(Path dir, String nodeHostname) throws IOException, ExportingConfigException {
        Path file = dir.resolve(FILE);
        if (!Files.exists(file)) {
            return none();
        }
        try {
            return from(IniFile.load(file), nodeHostname);
        } catch (IniException e) {
            throw new ExportingConfigException(e.getMessage());
        }
    }

    /** Reads parsed {@code exporting.conf} text. */
    public static ExportingConfig from(IniFile ini, String nodeHostname) throws ExportingConfigException {
        List<String> warnings = new ArrayList<>();
        Reader global = new Reader(ini, GLOBAL, null);
        boolean globalEnabled = global.bool("enabled", false);
        String hostname = global.string("hostname", nodeHostname);
        int globalUpdateEvery = global.integer("update every", DEFAULT_UPDATE_EVERY, 1, 86_400);
        List<TargetConfig> targets = new ArrayList<>();
        List<String> names = new ArrayList<>();
        for (String section : ini.sections()) {
            if (section.equals(GLOBAL)) {
                continue;
            }
            String connector = connectorOf(section);
            if (connector == null) {
                if (section.equals("prometheus:exporter")) {
                    warnings.add(where(ini, section) + ": [prometheus:exporter] configures Netdata's /api/v1/allmetrics,"
                            + " which Strata answers with its defaults; section ignored");
                } else {
                    warnings.add(where(ini, section) + ": [" + section + "] is not a section Strata knows; ignored");
                }
                markAll(ini, section);
                continue;
            }
            Reader r = new Reader(ini, section, GLOBAL);
            boolean enabled = r.bool("enabled", false);
            if (!connector.startsWith(CONNECTOR)) {
                markAll(ini, section);
                if (enabled) {
                    throw new ExportingConfigException(where(ini, section) + ": [" + section + "] enabled = yes: the "
                            + connector + " connector is not supported by Strata; only prometheus_remote_write"
                            + " (and prometheus_remote_write:https)");
                }
                warnings.add(where(ini, section) + ": [" + section + "] is a " + connector
                        + " instance, a connector Strata does not have; it is not enabled, ignored");
                continue;
            }
            if (!enabled) {
                markAll(ini, section);
                continue;
            }
            boolean tls = connector.endsWith(":https");
            String name = section.substring(connector.length() + 1);
            if (name.isEmpty() || !name.matches("[A-Za-z0-9_.-]+")) {
                throw new ExportingConfigException(where(ini, section) + ": [" + section + "]: the instance name '"
                        + name + "' must be letters, digits, '_', '.' or '-' (it names the position file)");
            }
            if (names.contains(name)) {
                throw new ExportingConfigException(where(ini, section) + ": [" + section + "]: a second instance named '"
                        + name + "'");
            }
            names.add(name);
            targets.add(target(r, name, tls, hostname, globalUpdateEvery, warnings));
        }
        if (!targets.isEmpty() && !globalEnabled) {
            warnings.add(ini.fileName() + ": [" + GLOBAL + "] enabled is not yes: the enabled instances "
                    + names + " export nothing");
        }
        for (IniFile.Entry e : ini.unusedEntries()) {
            warnings.add(e.file() + ":" + e.line() + ": [" + e.section() + "] " + e.name()
                    + " is not a key Strata knows; ignored");
        }
        return new ExportingConfig(globalEnabled, List.copyOf(targets), List.copyOf(warnings));
    }

    private static TargetConfig target(Reader r, String name, boolean tls, String globalHostname,
                                       int globalUpdateEvery, List<String> warnings) throws ExportingConfigException {
        List<Destination> destinations = destinations(r, tls);
        String path = r.string("remote write URL path", DEFAULT_PATH);
        if (!path.startsWith("/") || path.chars().anyMatch(c -> c <= ' ' || c == 127)) {
            throw r.bad("remote write URL path", path, "must start with '/' and hold no spaces or control characters");
        }
        String username = r.string("username", "");
        String password = r.string("password", "");
        if (username.isEmpty() && !password.isEmpty()) {
            throw r.bad("password", "(set)", "a password needs a username: it is sent as HTTP basic authentication");
        }
        if (!username.isEmpty() && username.indexOf(':') >= 0) {
            throw r.bad("username", username, "cannot contain ':' (HTTP basic authentication)");
        }
        if (!username.isEmpty() && !tls) {
            for (Destination d : destinations) {
                if (!isLoopback(d.host())) {
                    throw r.bad("username", username, "credentials would cross the network in clear text to "
                            + d.authority() + "; use [" + CONNECTOR + ":https:" + name + "]");
                }
            }
        }
        DataSource source = dataSource(r);
        String prefix = r.string("prefix", DEFAULT_PREFIX);
        if (!prefix.matches("[A-Za-z_:][A-Za-z0-9_:]*")) {
            throw r.bad("prefix", prefix, "must be a Prometheus metric name: letters, digits, '_' or ':', not starting"
                    + " with a digit");
        }
        String hostname = r.string("hostname", globalHostname);
        int updateEvery = r.integer("update every", globalUpdateEvery, 1, 86_400);
        int buffer = r.integer("buffer on failures", DEFAULT_BUFFER_ON_FAILURES, 1, 1_000_000);
        int timeout = r.integer("timeout ms", DEFAULT_TIMEOUT_MS, 1, 3_600_000);
        boolean names = r.bool("send names instead of ids", true);
        SimplePattern charts = SimplePattern.parse(r.string("send charts matching", "*"));
        SimplePattern hosts = SimplePattern.parse(r.string("send hosts matching", "localhost *"));
        boolean configured = r.bool("send configured labels", true);
        boolean automatic = r.bool("send automatic labels", false);
        int perRequest = r.integer("max samples per request", DEFAULT_MAX_SAMPLES_PER_REQUEST, 100, 1_000_000);
        long perSecond = r.integer("max samples per second", (int) DEFAULT_MAX_SAMPLES_PER_SECOND, 1000,
                Integer.MAX_VALUE);
        return new TargetConfig(name, tls, destinations, path, username, password, source, prefix, hostname,
                updateEvery, buffer, timeout, names, charts, hosts, configured, automatic, perRequest, perSecond);
    }

    private static DataSource dataSource(Reader r) throws ExportingConfigException {
        String v = r.string("data source", "average");
        switch (v) {
            case "average":
                return DataSource.AVERAGE;
            case "sum":
            case "volume":
                return DataSource.SUM;
            case "as collected":
            case "as-collected":
            case "as_collected":
            case "ascollected":
            case "raw":
                throw r.bad("data source", v, "is not available: the engine keeps each dimension's values after its"
                        + " algorithm, multiplier and divisor (rates for incremental dimensions), not the raw counters"
                        + " Netdata sends as collected; use average (with update every = 1, every stored second"
                        + " is sent as stored) or sum");
            default:
                throw r.bad("data source", v, "must be average or sum");
        }
    }

    /** Netdata's {@code [PROTOCOL:]HOST[:PORT]} list, separated by spaces; the port defaults to 80 (443 with TLS). */
    static List<Destination> destinations(Reader r, boolean tls) throws ExportingConfigException {
        String value = r.string("destination", DEFAULT_DESTINATION);
        List<Destination> out = new ArrayList<>();
        for (String part : value.trim().split("[\\s,]+")) {
            if (part.isEmpty()) {
                continue;
            }
            String s = part;
            String lower = s.toLowerCase(Locale.ROOT);
            if (lower.startsWith("tcp:")) {
                s = s.substring(4);
            } else if (lower.startsWith("udp:") || lower.startsWith("unix:")) {
                throw r.bad("destination", value, "'" + part + "': remote write needs TCP");
            }
            String host;
            int port = tls ? 443 : 80;
            if (s.startsWith("[")) {
                int close = s.indexOf(']');
                if (close < 0) {
                    throw r.bad("destination", value, "'" + part + "': unclosed '['");
                }
                host = s.substring(1, close);
                if (close + 1 < s.length()) {
                    if (s.charAt(close + 1) != ':') {
                        throw r.bad("destination", value, "'" + part + "': expected ':PORT' after ']'");
                    }
                    port = port(r, value, part, s.substring(close + 2));
                }
            } else {
                int colon = s.lastIndexOf(':');
                if (colon >= 0 && s.indexOf(':') != colon) {
                    throw r.bad("destination", value, "'" + part + "': write an IPv6 address as [ADDRESS]:PORT");
                }
                host = colon >= 0 ? s.substring(0, colon) : s;
                if (colon >= 0) {
                    port = port(r, value, part, s.substring(colon + 1));
                }
            }
            if (host.isEmpty()) {
                throw r.bad("destination", value, "'" + part + "': no host");
            }
            out.add(new Destination(host, port));
        }
        if (out.isEmpty()) {
            throw r.bad("destination", value, "is empty");
        }
        return out;
    }

    private static int port(Reader r, String value, String part, String s) throws ExportingConfigException {
        try {
            int p = Integer.parseInt(s);
            if (p > 0 && p <= 65535) {
                return p;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw r.bad("destination", value, "'" + part + "': '" + s + "' is not a port");
    }

    static boolean isLoopback(String host) {
        return host.equals("localhost") || host.startsWith("127.") || host.equals("::1");
    }

    /** {@code prometheus_remote_write[:http|:https]} or another Netdata connector type, from a section name. */
    static String connectorOf(String section) {
        for (String c : List.of(CONNECTOR + ":https", CONNECTOR + ":http", CONNECTOR)) {
            if (section.startsWith(c + ":")) {
                return c;
            }
        }
        for (String other : OTHER_CONNECTORS) {
            if (section.startsWith(other + ":")) {
                int second = section.indexOf(':', other.length() + 1);
                return second > 0 ? section.substring(0, second) : other;
            }
        }
        return null;
    }

    private static void markAll(IniFile ini, String section) {
        for (IniFile.Entry e : ini.entries(section)) {
            ini.entry(section, e.name());
        }
    }

    private static String where(IniFile ini, String section) {
        return ini.sectionLocation(section).orElse(ini.fileName());
    }

    /** Reads a section's keys with Netdata's fallback to {@code [exporting:global]}; errors name file and line. */
    static final class Reader {
        private final IniFile ini;
        private final String section;
        private final String fallback;

        Reader(IniFile ini, String section, String fallback) {
            this.ini = ini;
            this.section = section;
            this.fallback = fallback;
        }

        private Optional<IniFile.Entry> entry(String key) {
            Optional<IniFile.Entry> e = ini.entry(section, key);
            if (e.isEmpty() && fallback != null) {
                e = ini.entry(fallback, key);
            }
            return e;
        }

        String string(String key, String def) {
            return entry(key).map(IniFile.Entry::value).orElse(def);
        }

        boolean bool(String key, boolean def) throws ExportingConfigException {
            Optional<IniFile.Entry> e = entry(key);
            if (e.isEmpty()) {
                return def;
            }
            String v = e.get().value().toLowerCase(Locale.ROOT);
            if (IniFile.isNetdataTrue(v)) {
                return true;
            }
            if (v.equals("no") || v.equals("false") || v.equals("off")) {
                return false;
            }
            throw bad(e.get(), "must be yes or no");
        }

        int integer(String key, int def, int min, int max) throws ExportingConfigException {
            Optional<IniFile.Entry> e = entry(key);
            if (e.isEmpty()) {
                return def;
            }
            OptionalLong parsed = ConfigNumbers.wholeNumber(e.get().value());
            if (parsed.isEmpty()) {
                throw bad(e.get(), "is not a number");
            }
            long v = parsed.getAsLong();
            if (v < min || v > max) {
                throw bad(e.get(), "must be between " + min + " and " + max);
            }
            return (int) v;
        }

        ExportingConfigException bad(String key, String value, String why) {
            Optional<IniFile.Entry> e = ini.peek(section, key);
            if (e.isEmpty() && fallback != null) {
                e = ini.peek(fallback, key);
            }
            String at = e.map(IniFile.Entry::location).orElse(ini.fileName());
            String in = e.map(IniFile.Entry::section).orElse(section);
            return new ExportingConfigException(at + ": [" + in + "] " + key + " = " + value + ": " + why);
        }

        private ExportingConfigException bad(IniFile.Entry e, String why) {
            return new ExportingConfigException(e.location() + ": [" + e.section() + "] " + e.name() + " = "
                    + e.value() + ": " + why);
        }
    }
}
