package io.strata.node.config;

import io.strata.streaming.auth.StreamConfig;
import io.strata.streaming.config.IniFile;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import io.strata.engine.EngineConfig;
import io.strata.streaming.config.IniException;
import java.net.InetAddress;

/**
 * A node's configuration, read from Netdata-style {@code netdata.conf} and {@code stream.conf}
 * in one directory, with Netdata's keys and defaults where Netdata has them. A value that cannot
 * be used stops the start with a message naming its file, line and key.
 */
public record NodeConfig(Path dir, String hostname, int updateEvery, int storageTiers, long[] tierDiskSpaceMb,
                         Path cacheDir, Path libDir, List<InetSocketAddress> bindTo, int acceptStreamEverySeconds,
                         boolean replicationEnabled, long secondsToReplicate, long secondsPerReplicationStep,
                         int syntheticCharts, int syntheticDimensions, boolean procPlugin, StreamConfig stream,
                         Path sslCertificate, Path sslKey, DbEngineSettings dbEngine, LogSettings logs,
                         List<String> warnings) {

    public static final int DEFAULT_PORT = 19999;

    public static NodeConfig load(Path dir) throws IOException, ConfigException {
        Path netdataConf = dir.resolve("netdata.conf");
        Path streamConf = dir.resolve("stream.conf");
        IniFile nd;
        IniFile st;
        try {
            nd = Files.exists(netdataConf) ? IniFile.load(netdataConf) : IniFile.parse("", netdataConf.toString());
            st = Files.exists(streamConf) ? IniFile.load(streamConf) : IniFile.parse("", streamConf.toString());
        } catch (IniException e) {
            throw new ConfigException(e.getMessage());
        }
        List<String> warnings = new ArrayList<>();

        String hostname = nd.get("global", "hostname", localHostname());
        int updateEvery = (int) positive(nd, "db", "update every", 1, 86_400);
        String mode = nd.get("db", "mode", "dbengine");
        if (!mode.equals("dbengine")) {
            throw new ConfigException(netdataConf + ": [db] mode = " + mode
                    + " is not supported; Strata stores in dbengine only");
        }
        int tiers = (int) positive(nd, "db", "storage tiers", 3, 5);
        long[] space = new long[tiers];
        space[0] = positive(nd, "db", "dbengine multihost disk space MB", 256, Long.MAX_VALUE / (1 << 20));
        for (int t = 1; t < tiers; t++) {
            space[t] = positive(nd, "db", "dbengine tier " + t + " multihost disk space MB", space[0] / 2,
                    Long.MAX_VALUE / (1 << 20));
        }
        DbEngineSettings dbEngine = DbEngineSettings.read(nd, netdataConf, tiers);
        LogSettings logs = LogSettings.read(nd, netdataConf, dir);
        Path cache = Path.of(nd.get("directories", "cache", dir.resolve("cache").toString()));
        Path lib = Path.of(nd.get("directories", "lib", dir.resolve("lib").toString()));
        List<InetSocketAddress> bind = parseBindTo(nd.get("web", "bind to", "*:" + DEFAULT_PORT), netdataConf);
        int acceptEvery = (int) nonNegative(nd, "web", "accept a streaming request every seconds", 0);
        boolean replication = nd.getBoolean("db", "enable replication", true);
        long toReplicate = nonNegative(nd, "db", "seconds to replicate", 86_400);
        long perStep = positive(nd, "db", "seconds per replication step", 600, 86_400 * 7L);
        int synthCharts = (int) nonNegative(nd, "strata", "synthetic charts", 0);
        int synthDims = (int) positive(nd, "strata", "synthetic dimensions per chart", 10, 10_000);
        // Netdata's key: a child collects its own machine from /proc unless told not to
        boolean proc = nd.getBoolean("plugins", "proc", true);

        String cert = nd.get("web", "ssl certificate", "");
        String key = nd.get("web", "ssl key", "");
        if (cert.isEmpty() != key.isEmpty()) {
            throw new ConfigException(netdataConf + ": [web] ssl certificate and ssl key go together; only "
                    + (cert.isEmpty() ? "ssl key" : "ssl certificate") + " is set");
        }
        StreamConfig stream = StreamConfig.from(st);
        warnings.addAll(stream.warnings());
        for (IniFile.Entry e : nd.unusedEntries()) {
            warnings.add(e.file() + ":" + e.line() + ": [" + e.section() + "] " + e.name()
                    + " is not a key Strata knows; ignored");
        }
        for (IniFile.Entry e : st.unusedEntries()) {
            warnings.add(e.file() + ":" + e.line() + ": [" + e.section() + "] " + e.name()
                    + " is not a key Strata knows; ignored");
        }
        return new NodeConfig(dir, hostname, updateEvery, tiers, space, cache, lib, bind, acceptEvery, replication,
                toReplicate, perStep, synthCharts, synthDims, proc, stream, cert.isEmpty() ? null : Path.of(cert),
                key.isEmpty() ? null : Path.of(key), dbEngine, logs, List.copyOf(warnings));
    }

    public Path dbDir() {
        return cacheDir.resolve("dbengine");
    }

    /** The engine's configuration: tiers, quotas and the {@code [db]} tuning keys. */
    public EngineConfig engineConfig() {
        EngineConfig ec = EngineConfig.defaults(dbDir()).withTiers(storageTiers);
        for (int t = 0; t < storageTiers; t++) {
            ec = ec.withQuota(t, tierDiskSpaceMb[t] << 20);
        }
        return dbEngine.applyTo(ec);
    }

    public boolean isParent() {
        return stream.hasEnabledApiKeys();
    }

    public boolean isChild() {
        return stream.sender().enabled();
    }

    private static long positive(IniFile f, String section, String key, long def, long max) throws ConfigException {
        long v = number(f, section, key, def);
        if (v <= 0 || v > max) {
            throw new ConfigException("[" + section + "] " + key + " = " + v + " must be between 1 and " + max);
        }
        return v;
    }

    private static long nonNegative(IniFile f, String section, String key, long def) throws ConfigException {
        long v = number(f, section, key, def);
        if (v < 0) {
            throw new ConfigException("[" + section + "] " + key + " = " + v + " must not be negative");
        }
        return v;
    }

    private static long number(IniFile f, String section, String key, long def) throws ConfigException {
        String s = f.get(section, key, null);
        if (s == null) {
            return def;
        }
        try {
            return Long.parseLong(s.trim());
        } catch (NumberFormatException e) {
            throw new ConfigException("[" + section + "] " + key + " = " + s + " is not a number");
        }
    }

    static List<InetSocketAddress> parseBindTo(String value, Path file) throws ConfigException {
        List<InetSocketAddress> out = new ArrayList<>();
        for (String part : value.trim().split("[\\s,]+")) {
            if (part.isEmpty()) {
                continue;
            }
            // Netdata appends "=mode" options (e.g. "127.0.0.1:19999=streaming"); they do not change a port's role here
            int eq = part.indexOf('=');
            if (eq >= 0) {
                part = part.substring(0, eq);
            }
            String host = part;
            int port = DEFAULT_PORT;
            int colon = part.lastIndexOf(':');
            if (part.startsWith("[")) {
                int close = part.indexOf(']');
                host = part.substring(1, close);
                if (close + 1 < part.length() && part.charAt(close + 1) == ':') {
                    port = port(part.substring(close + 2), value, file);
                }
            } else if (colon >= 0) {
                host = part.substring(0, colon);
                port = port(part.substring(colon + 1), value, file);
            }
            if (host.equals("*") || host.isEmpty()) {
                out.add(new InetSocketAddress(port));
            } else {
                out.add(new InetSocketAddress(host, port));
            }
        }
        if (out.isEmpty()) {
            throw new ConfigException(file + ": [web] bind to is empty");
        }
        return out;
    }

    private static int port(String s, String value, Path file) throws ConfigException {
        try {
            int p = Integer.parseInt(s);
            if (p < 0 || p > 65535) {
                throw new NumberFormatException();
            }
            return p;
        } catch (NumberFormatException e) {
            throw new ConfigException(file + ": [web] bind to = " + value + ": '" + s + "' is not a port");
        }
    }

    private static String localHostname() {
        try {
            return InetAddress.getLocalHost().getHostName();
        } catch (IOException e) {
            return "localhost";
        }
    }

    /** A configuration value that stops the start. */
    public static final class ConfigException extends Exception {
        public ConfigException(String message) {
            super(message);
        }
    }
}
