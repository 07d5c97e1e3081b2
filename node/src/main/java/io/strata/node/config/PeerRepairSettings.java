package io.strata.node.config;

import io.strata.node.config.NodeConfig.ConfigException;
import io.strata.streaming.config.IniFile;
import io.strata.engine.netdata.ConfigNumbers;

import java.nio.file.Path;
import java.util.Locale;

/**
 * netdata.conf's {@code [db]} keys of the repair of holes from peer parents (Strata's own; Netdata
 * 1.37.1 has no such repair): {@code repair holes from peers} (yes), {@code repair holes window
 * seconds} (3600: how far behind now holes are looked for, 60 to 86400) and {@code repair holes every
 * seconds} (60: between rounds, 5 to 3600). The repair runs on a parent with peers (a {@code proxy
 * destination} in a stream.conf section, docs/replication.md); it asks them with the section's {@code
 * proxy api key}, and answers theirs as its {@code allow streaming from} and API keys allow.
 */
public record PeerRepairSettings(boolean enabled, long windowSeconds, long intervalSeconds) {

    public static final String ENABLED_KEY = "repair holes from peers";
    public static final String WINDOW_KEY = "repair holes window seconds";
    public static final String INTERVAL_KEY = "repair holes every seconds";
    public static final PeerRepairSettings DEFAULTS = new PeerRepairSettings(true, 3600, 60);

    static PeerRepairSettings read(IniFile nd, Path netdataConf) throws ConfigException {
        String on = nd.get("db", ENABLED_KEY, null);
        boolean enabled = true;
        if (on != null) {
            String v = on.trim().toLowerCase(Locale.ROOT);
            if (v.equals("yes") || v.equals("true") || v.equals("on")) {
                enabled = true;
            } else if (v.equals("no") || v.equals("false") || v.equals("off")) {
                enabled = false;
            } else {
                throw new ConfigException(NodeConfig.where(nd, "db", ENABLED_KEY, netdataConf) + ": [db] " + ENABLED_KEY
                        + " = " + on + " must be yes or no");
            }
        }
        long window = bounded(nd, netdataConf, WINDOW_KEY, DEFAULTS.windowSeconds(), 60, 86_400);
        long interval = bounded(nd, netdataConf, INTERVAL_KEY, DEFAULTS.intervalSeconds(), 5, 3600);
        return new PeerRepairSettings(enabled, window, interval);
    }

    private static long bounded(IniFile nd, Path file, String key, long def, long min, long max) throws ConfigException {
        String s = nd.get("db", key, null);
        if (s == null) {
            return def;
        }
        long v = ConfigNumbers.wholeNumber(s).orElse(Long.MIN_VALUE);
        if (v < min || v > max) {
            throw new ConfigException(NodeConfig.where(nd, "db", key, file) + ": [db] " + key + " = " + s
                    + " must be a number of seconds between " + min + " and " + max);
        }
        return v;
    }
}
