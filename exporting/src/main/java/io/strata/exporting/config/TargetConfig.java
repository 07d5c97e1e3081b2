package io.strata.exporting.config;

import io.strata.engine.netdata.SimplePattern;

import java.util.List;
import java.util.Locale;

/**
 * One enabled {@code [prometheus_remote_write:NAME]} (or {@code [prometheus_remote_write:https:NAME]})
 * section of {@code exporting.conf}, with Netdata's keys and defaults, and the two keys of Strata's
 * own that bound how fast a target is fed while catching up.
 *
 * @param name                  the instance name (after the connector type); names the position file and the meters
 * @param tls                   {@code :https}: TLS with the JDK's trust store, host names verified
 * @param destinations          {@code destination}: the failover list, tried in order
 * @param path                  {@code remote write URL path}
 * @param username              {@code username}: HTTP basic authentication when not empty
 * @param password              {@code password}
 * @param dataSource            {@code data source}
 * @param prefix                {@code prefix}: the first part of every metric name
 * @param hostname              {@code hostname}: the {@code instance} label of this node's own host
 * @param updateEvery           {@code update every}: seconds per exported sample
 * @param bufferOnFailures      {@code buffer on failures}: accepted for compatibility (see docs/exporting.md)
 * @param timeoutMillis         {@code timeout ms}: one request's time limit
 * @param sendNames             {@code send names instead of ids}
 * @param charts                {@code send charts matching}: on a chart's id or name
 * @param hosts                 {@code send hosts matching}: on a host's name, {@code localhost} for this node's own
 * @param sendConfiguredLabels  {@code send configured labels}: host labels not starting with {@code _}
 * @param sendAutomaticLabels   {@code send automatic labels}: host labels starting with {@code _}
 * @param maxSamplesPerRequest  {@code max samples per request} (Strata): the size of one write request
 * @param maxSamplesPerSecond   {@code max samples per second} (Strata): the catch-up rate after an outage
 */
public record TargetConfig(String name, boolean tls, List<Destination> destinations, String path, String username,
                           String password, DataSource dataSource, String prefix, String hostname, int updateEvery,
                           int bufferOnFailures, int timeoutMillis, boolean sendNames, SimplePattern charts,
                           SimplePattern hosts, boolean sendConfiguredLabels, boolean sendAutomaticLabels,
                           int maxSamplesPerRequest, long maxSamplesPerSecond) {

    public TargetConfig {
        destinations = List.copyOf(destinations);
    }

    /** The section name as written: {@code prometheus_remote_write[:https]:NAME}. */
    public String section() {
        return "prometheus_remote_write:" + (tls ? "https:" : "") + name;
    }

    @Override
    public String toString() {
        // never the password
        return "TargetConfig[" + section() + " -> " + destinations + path + (username.isEmpty() ? "" : " as " + username)
                + ", " + dataSource.name().toLowerCase(Locale.ROOT) + " every " + updateEvery + " s]";
    }
}
