package io.strata.streaming.auth;

import io.strata.streaming.config.IniFile;

import java.util.Objects;

/**
 * The parent's own defaults for hosts it receives, which stream.conf API-key and machine-GUID sections
 * override. In Netdata they come from the parent's netdata.conf.
 *
 * @param updateEvery               {@code [db] update every}: used when the child sent no {@code update_every}
 * @param history                   {@code [db] retention} (entries; only meaningful for the ram/save/map modes)
 * @param memoryMode                {@code [db] mode}, normalised by {@link #memoryModeName}
 * @param health                    {@code [health] enabled}
 * @param enableReplication         {@code [db] enable replication}
 * @param secondsToReplicate        {@code [db] seconds to replicate}
 * @param secondsPerReplicationStep {@code [db] seconds per replication step}
 */
public record HostDefaults(int updateEvery, long history, String memoryMode, HealthSetting health,
        boolean enableReplication, long secondsToReplicate, long secondsPerReplicationStep) {

    /** Netdata 1.37.1's built-in values (a netdata.conf that sets nothing). */
    public static final HostDefaults NETDATA_1_37_1 =
            new HostDefaults(1, 3600, "dbengine", HealthSetting.YES, true, 86400, 600);

    public HostDefaults {
        Objects.requireNonNull(memoryMode, "memoryMode");
        Objects.requireNonNull(health, "health");
    }

    /**
     * Reads the keys above from a parent's netdata.conf, falling back to {@link #NETDATA_1_37_1}; marks
     * them used in {@code netdataConf}.
     */
    public static HostDefaults fromNetdataConf(IniFile netdataConf) {
        HostDefaults d = NETDATA_1_37_1;
        long updateEvery = netdataConf.getLong("db", "update every", d.updateEvery());
        return new HostDefaults(
                updateEvery < 1 || updateEvery > Integer.MAX_VALUE ? d.updateEvery() : (int) updateEvery,
                netdataConf.getLong("db", "retention", d.history()),
                memoryModeName(netdataConf.get("db", "mode", d.memoryMode())),
                netdataConf.getBoolean("health", "enabled", true) ? HealthSetting.YES : HealthSetting.NO,
                netdataConf.getBoolean("db", "enable replication", d.enableReplication()),
                netdataConf.getLong("db", "seconds to replicate", d.secondsToReplicate()),
                netdataConf.getLong("db", "seconds per replication step", d.secondsPerReplicationStep()));
    }

    /**
     * Netdata's {@code rrd_memory_mode_id()} then {@code rrd_memory_mode_name()}: {@code ram}, {@code map},
     * {@code none}, {@code alloc}, {@code dbengine} and {@code save} are kept; anything else (including a
     * different case) becomes {@code save}, as in Netdata.
     */
    public static String memoryModeName(String configured) {
        if (configured == null) {
            return "save";
        }
        switch (configured) {
            case "ram":
            case "map":
            case "none":
            case "alloc":
            case "dbengine":
            case "save":
                return configured;
            default:
                return "save";
        }
    }

    /** True when {@link #memoryModeName} keeps the value as it is. */
    public static boolean isKnownMemoryMode(String configured) {
        return configured != null && memoryModeName(configured).equals(configured);
    }
}
