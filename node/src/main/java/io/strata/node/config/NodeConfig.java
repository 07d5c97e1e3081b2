package io.strata.node.config;

import io.strata.streaming.auth.HostDefaults;
import io.strata.streaming.auth.StreamConfig;
import io.strata.streaming.config.IniFile;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import io.strata.engine.EngineConfig;
import io.strata.engine.netdata.ConfigNumbers;
import io.strata.streaming.config.IniException;
import java.net.InetAddress;
import io.strata.exporting.config.ExportingConfig;
import io.strata.streaming.server.TlsContexts;
import io.strata.streaming.server.Listener;
import io.strata.exporting.config.ExportingConfigException;

/**
 * A node's configuration, read from Netdata-style {@code netdata.conf}, {@code stream.conf} and
 * {@code exporting.conf} in one directory, with Netdata's keys and defaults where Netdata has them. A value that cannot
 * be used stops the start with a message naming its file, line and key.
 */
public record NodeConfig(Path dir, String hostname, int updateEvery, int storageTiers, long[] tierDiskSpaceMb,
                         Path cacheDir, Path libDir, List<InetSocketAddress> bindTo, int acceptStreamEverySeconds,
                         boolean replicationEnabled, long secondsToReplicate, long secondsPerReplicationStep,
                         int syntheticCharts, int syntheticDimensions, boolean procPlugin, StreamConfig stream,
                         Path sslCertificate, Path sslKey, DbEngineSettings dbEngine, WebSettings web,
                         LogSettings logs, List<String> warnings, ExportingConfig exporting,
                         PeerRepairSettings peerRepair) {

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
        return from(dir, nd, st);
    }

    /**
     * The configuration of {@code dir} from its parsed {@code netdata.conf} and {@code stream.conf}
     * (their file names are those the {@link IniFile}s carry); {@code exporting.conf} is read from
     * {@code dir}.
     */
    static NodeConfig from(Path dir, IniFile nd, IniFile st) throws IOException, ConfigException {
        Path netdataConf = dir.resolve("netdata.conf");
        Path streamConf = dir.resolve("stream.conf");
        List<String> warnings = new ArrayList<>();

        String hostname = nd.get("global", "hostname", localHostname());
        int updateEvery = (int) positive(nd, "db", "update every", 1, 86_400);
        String mode = nd.get("db", "mode", "dbengine");
        if (!mode.equals("dbengine")) {
            throw new ConfigException(where(nd, "db", "mode", netdataConf) + ": [db] mode = " + mode
                    + " is not supported; Strata stores in dbengine only");
        }
        int tiers = (int) positive(nd, "db", "storage tiers", 3, 5);
        long[] space = new long[tiers];
        space[0] = positive(nd, "db", "dbengine multihost disk space MB", 256, Long.MAX_VALUE / (1 << 20));
        for (int t = 1; t < tiers; t++) {
            space[t] = positive(nd, "db", "dbengine tier " + t + " multihost disk space MB", Math.max(1, space[0] / 2),
                    Long.MAX_VALUE / (1 << 20));
        }
        DbEngineSettings dbEngine = DbEngineSettings.read(nd, netdataConf, tiers);
        LogSettings logs = LogSettings.read(nd, netdataConf, dir);
        PeerRepairSettings peerRepair = PeerRepairSettings.read(nd, netdataConf);
        Path cache = directory(nd, "cache", dir, netdataConf);
        Path lib = directory(nd, "lib", dir, netdataConf);
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
            throw new ConfigException(where(nd, "web", cert.isEmpty() ? "ssl key" : "ssl certificate", netdataConf)
                    + ": [web] ssl certificate and ssl key go together; only "
                    + (cert.isEmpty() ? "ssl key" : "ssl certificate") + " is set");
        }
        WebSettings web = WebSettings.read(nd, netdataConf, !cert.isEmpty());
        List<InetSocketAddress> bind = new ArrayList<>();
        for (Listener l : web.listeners()) {
            bind.add(l.address());
        }
        // netdata.conf's [db] (and [health]) keys are the defaults of stream.conf's API-key and
        // machine sections, as in Netdata (docs/format/stream-handshake.md §4)
        StreamConfig stream = StreamConfig.from(st, HostDefaults.fromNetdataConf(nd));
        warnings.addAll(stream.warnings());
        String trust;
        try {
            trust = TlsContexts.checkTrustSettings(stream.sender().caFile(), stream.sender().caPath());
        } catch (InvalidPathException e) {
            trust = "[stream] CAfile = " + stream.sender().caFile() + " is not a path (" + e.getReason() + ")";
        }
        if (trust != null) {
            String where = st.peek("stream", trust.contains("CApath") ? "CApath" : "CAfile")
                    .map(IniFile.Entry::location).orElse(streamConf.toString());
            throw new ConfigException(where + ": " + trust);
        }
        // exporting.conf: Netdata's exporting engine, here Prometheus remote write from the engine (docs/exporting.md)
        ExportingConfig exporting;
        try {
            exporting = ExportingConfig.load(dir, hostname);
        } catch (ExportingConfigException e) {
            throw new ConfigException(e.getMessage());
        }
        warnings.addAll(exporting.warnings());
        for (IniFile.Entry e : nd.unusedEntries()) {
            warnings.add(e.file() + ":" + e.line() + ": [" + e.section() + "] " + e.name()
                    + " is not a key Strata knows; ignored");
        }
        for (IniFile.Entry e : st.unusedEntries()) {
            warnings.add(e.file() + ":" + e.line() + ": [" + e.section() + "] " + e.name()
                    + " is not a key Strata knows; ignored");
        }
        return new NodeConfig(dir, hostname, updateEvery, tiers, space, cache, lib, List.copyOf(bind), acceptEvery, replication,
                toReplicate, perStep, synthCharts, synthDims, proc, stream,
                cert.isEmpty() ? null : path(null, cert, where(nd, "web", "ssl certificate", netdataConf)
                        + ": [web] ssl certificate = " + cert),
                key.isEmpty() ? null : path(null, key, where(nd, "web", "ssl key", netdataConf) + ": [web] ssl key = " + key),
                dbEngine, web, logs, List.copyOf(warnings), exporting, peerRepair);
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
            throw new ConfigException(where(f, section, key) + ": [" + section + "] " + key + " = " + v
                    + " must be between 1 and " + max);
        }
        return v;
    }

    private static long nonNegative(IniFile f, String section, String key, long def) throws ConfigException {
        long v = number(f, section, key, def);
        if (v < 0) {
            throw new ConfigException(where(f, section, key) + ": [" + section + "] " + key + " = " + v
                    + " must not be negative");
        }
        return v;
    }

    private static long number(IniFile f, String section, String key, long def) throws ConfigException {
        String s = f.get(section, key, null);
        if (s == null) {
            return def;
        }
        String value = s;
        return ConfigNumbers.wholeNumber(value).orElseThrow(() -> new ConfigException(where(f, section, key) + ": ["
                + section + "] " + key + " = " + value + " is not a number"));
    }

    /** {@code file:line} of {@code [section] key} in {@code f}, or the file's name when the key is not set. */
    static String where(IniFile f, String section, String key) {
        return f.peek(section, key).map(IniFile.Entry::location).orElse(f.fileName());
    }

    /** {@code file:line} of {@code [section] key} in {@code f}, or {@code file} when the key is not set. */
    static String where(IniFile f, String section, String key, Path file) {
        return f.peek(section, key).map(IniFile.Entry::location).orElse(file.toString());
    }

    /**
     * {@code value} as a path (resolved against {@code base} when that is not null); a value that is
     * no path (a NUL in it) is a configuration error, {@code what} naming where it is written.
     */
    static Path path(Path base, String value, String what) throws ConfigException {
        try {
            return base == null ? Path.of(value) : base.resolve(value);
        } catch (InvalidPathException e) {
            throw new ConfigException(what + " is not a path (" + e.getReason() + ")");
        }
    }

    private static Path directory(IniFile nd, String key, Path dir, Path netdataConf) throws ConfigException {
        String value = nd.get("directories", key, dir.resolve(key).toString());
        return path(null, value, where(nd, "directories", key, netdataConf) + ": [directories] " + key + " = " + value);
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
