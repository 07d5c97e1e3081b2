package io.strata.node.config;

import io.strata.engine.EngineConfig;
import io.strata.engine.FsyncPolicy;
import io.strata.engine.netdata.ConfigNumbers;
import io.strata.node.config.NodeConfig.ConfigException;
import io.strata.streaming.config.IniFile;

import java.nio.file.Path;

/**
 * The {@code [db]} keys of {@code netdata.conf} that tune the engine beyond tiers and quotas:
 * cache size, tier grouping, retention by age, a tier's own directory, fsync policy and direct
 * reads. Netdata's key names where Netdata has the setting (1.37.1's {@code dbengine page cache
 * size MB} and {@code dbengine tier N update every iterations}; later Netdata's {@code dbengine use
 * direct io} and {@code dbengine tier N retention time}); Strata's own otherwise.
 *
 * @param pageCacheMb        the engine's cache bound in MiB; 0 sizes it from the number of metrics
 * @param tierGrouping       points of tier N-1 per point of tier N, the same for every tier
 * @param retentionSeconds   per tier, the maximum age of its data; 0 = none
 * @param tierDirectories    per tier, where its files live; null = under the engine's directory
 * @param fsync              when written extents are forced to the device
 * @param directIo           read datafiles with O_DIRECT
 * @param maxFutureSeconds   points stamped further ahead of this node's clock are refused and
 *                           counted per host ({@code dbengine max future time}, Strata's key); 0
 *                           accepts any time (an accelerated load)
 */
public record DbEngineSettings(long pageCacheMb, int tierGrouping, long[] retentionSeconds, Path[] tierDirectories,
                               FsyncPolicy fsync, boolean directIo, long maxFutureSeconds) {

    /** The key that bounds how far ahead of the clock a point may be stamped. */
    public static final String MAX_FUTURE_TIME_KEY = "dbengine max future time";

    static DbEngineSettings read(IniFile nd, Path netdataConf, int tiers) throws ConfigException {
        long cacheMb = 0;
        String cache = nd.get("db", "dbengine page cache size MB", null);
        if (cache != null) {
            String where = NodeConfig.where(nd, "db", "dbengine page cache size MB", netdataConf);
            cacheMb = parseLong(where, "dbengine page cache size MB", cache);
            if (cacheMb < 0 || cacheMb > (1L << 24)) {
                throw new ConfigException(where + ": [db] dbengine page cache size MB = " + cache
                        + " must be between 0 (sized from the number of metrics) and " + (1L << 24));
            }
        }
        int grouping = EngineConfig.DEFAULT_TIER_GROUPING;
        for (int t = 1; t < tiers; t++) {
            String key = "dbengine tier " + t + " update every iterations";
            String v = nd.get("db", key, null);
            if (v == null) {
                continue;
            }
            String where = NodeConfig.where(nd, "db", key, netdataConf);
            long g = parseLong(where, key, v);
            if (g < 2 || g > 255) {
                throw new ConfigException(where + ": [db] " + key + " = " + v + " must be between 2 and 255");
            }
            if (t > 1 && g != grouping) {
                throw new ConfigException(where + ": [db] " + key + " = " + v + " differs from tier 1's "
                        + grouping + "; Strata groups every tier by the same number of points");
            }
            grouping = (int) g;
        }
        String steps = EngineConfig.tierStepProblem(tiers, grouping);
        if (steps != null) {
            String key = nd.peek("db", "dbengine tier 1 update every iterations").isPresent()
                    ? "dbengine tier 1 update every iterations" : "storage tiers";
            throw new ConfigException(NodeConfig.where(nd, "db", key, netdataConf) + ": [db] storage tiers = " + tiers
                    + " with dbengine tier N update every iterations = " + grouping + ": " + steps);
        }
        long[] retention = new long[tiers];
        Path[] dirs = new Path[tiers];
        for (int t = 0; t < tiers; t++) {
            String key = "dbengine tier " + t + " retention time";
            String v = nd.get("db", key, null);
            if (v != null) {
                retention[t] = parseDuration(NodeConfig.where(nd, "db", key, netdataConf), key, v);
            }
            String dirKey = "dbengine tier " + t + " directory";
            String d = nd.get("db", dirKey, null);
            if (d != null && !d.isBlank()) {
                dirs[t] = NodeConfig.path(null, d.trim(),
                        NodeConfig.where(nd, "db", dirKey, netdataConf) + ": [db] " + dirKey + " = " + d);
            }
        }
        FsyncPolicy fsync = FsyncPolicy.PER_DATAFILE;
        String f = nd.get("db", "dbengine fsync", null);
        if (f != null) {
            try {
                fsync = FsyncPolicy.parse(f.trim().replace(' ', '-'));
            } catch (IllegalArgumentException e) {
                throw new ConfigException(NodeConfig.where(nd, "db", "dbengine fsync", netdataConf)
                        + ": [db] dbengine fsync = " + f
                        + " must be one of: never, per extent, per datafile");
            }
        }
        boolean direct = nd.getBoolean("db", "dbengine use direct io", false);
        long future = EngineConfig.DEFAULT_FUTURE_MARGIN_SECONDS;
        String fut = nd.get("db", MAX_FUTURE_TIME_KEY, null);
        if (fut != null) {
            future = parseDuration(NodeConfig.where(nd, "db", MAX_FUTURE_TIME_KEY, netdataConf), MAX_FUTURE_TIME_KEY, fut);
        }
        return new DbEngineSettings(cacheMb, grouping, retention, dirs, fsync, direct, future);
    }

    /** {@code base} with these settings applied. */
    public EngineConfig applyTo(EngineConfig base) {
        EngineConfig ec = base.withCacheBytes(pageCacheMb << 20).withTierGrouping(tierGrouping).withFsync(fsync)
                .withDirectReads(directIo).withFutureMarginSeconds(maxFutureSeconds);
        for (int t = 0; t < retentionSeconds.length; t++) {
            ec = ec.withMaxAge(t, retentionSeconds[t]);
            if (tierDirectories[t] != null) {
                ec = ec.withTierDir(t, tierDirectories[t]);
            }
        }
        return ec;
    }

    private static long parseLong(String file, String key, String v) throws ConfigException {
        return ConfigNumbers.wholeNumber(v).orElseThrow(
                () -> new ConfigException(file + ": [db] " + key + " = " + v + " is not a number"));
    }

    /** Netdata's duration spelling ({@link ConfigNumbers#durationSeconds}); 0 means no limit. */
    static long parseDuration(String file, String key, String v) throws ConfigException {
        return ConfigNumbers.durationSeconds(v).orElseThrow(() -> new ConfigException(file + ": [db] " + key
                + " = " + v + " is not a duration (a number with " + ConfigNumbers.DURATION_UNITS + ")"));
    }
}
