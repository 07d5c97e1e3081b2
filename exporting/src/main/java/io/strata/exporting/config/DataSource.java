package io.strata.exporting.config;

/** Netdata's {@code data source}: what value one exported sample carries for its interval. */
public enum DataSource {
    /** The mean of the values stored in the interval; Netdata's default. */
    AVERAGE,
    /** The sum of the values stored in the interval (Netdata also accepts {@code volume}). */
    SUM
}
