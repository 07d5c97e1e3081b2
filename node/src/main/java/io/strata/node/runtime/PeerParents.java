package io.strata.node.runtime;

import io.strata.replication.peer.HoleRepair;
import io.strata.streaming.auth.StreamConfig;
import io.strata.streaming.sender.Destination;
import org.slf4j.Logger;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A parent's peers, as its stream.conf names them: every {@code proxy destination} of an enabled
 * API-key section that forwards ({@code default proxy enabled} with a destination and a {@code default
 * proxy api key}), and of a machine-GUID section that sets all three itself. Each destination once
 * (the first section's key asks it); {@code :SSL} destinations are left out (the repair speaks plain
 * HTTP, as the hand-over's lookup does) and said so at INFO.
 */
final class PeerParents {

    private PeerParents() {
    }

    static List<HoleRepair.Peer> of(StreamConfig conf, Logger log) {
        Map<String, HoleRepair.Peer> peers = new LinkedHashMap<>();
        List<String> ssl = new ArrayList<>();
        int port = conf.sender().defaultPort();
        for (StreamConfig.KeySection k : conf.apiKeys()) {
            if (k.enabled() && "api".equals(k.type()) && k.defaultProxyEnabled()) {
                add(peers, ssl, k.defaultProxyDestination(), k.defaultProxyApiKey(), port);
            }
        }
        for (StreamConfig.MachineSection m : conf.machines()) {
            if (m.enabled() && m.proxyEnabled().orElse(false) && m.proxyDestination().isPresent()
                    && m.proxyApiKey().isPresent()) {
                add(peers, ssl, m.proxyDestination().get(), m.proxyApiKey().get(), port);
            }
        }
        if (!ssl.isEmpty()) {
            log.info("hole repair: peers behind TLS are not asked for holes (plain HTTP only): {}", ssl);
        }
        return List.copyOf(peers.values());
    }

    private static void add(Map<String, HoleRepair.Peer> peers, List<String> ssl, String destinations, String key,
                            int defaultPort) {
        if (destinations == null || destinations.isBlank() || key == null || key.isBlank()) {
            return;
        }
        List<Destination> list;
        try {
            list = Destination.parseList(destinations, defaultPort);
        } catch (IllegalArgumentException e) {
            return;
        }
        for (Destination d : list) {
            if (d.ssl()) {
                ssl.add(d.entry());
                continue;
            }
            peers.putIfAbsent(d.host() + "|" + d.port(), new HoleRepair.Peer(d.host(), d.port(), key.trim()));
        }
    }
}
