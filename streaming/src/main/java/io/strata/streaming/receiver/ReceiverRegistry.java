package io.strata.streaming.receiver;

import io.netty.channel.Channel;
import io.strata.streaming.auth.StreamAuthorizer;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The streams a parent is receiving, by machine GUID: a second connection of a host that still
 * sends data is refused ("already streaming"), one whose old connection went quiet replaces it.
 */
public final class ReceiverRegistry implements StreamAuthorizer.LiveReceivers {

    /** One live stream. */
    public static final class Active {
        final Channel channel;
        final String hostname;
        volatile long lastDataMillis;

        Active(Channel channel, String hostname, long now) {
            this.channel = channel;
            this.hostname = hostname;
            this.lastDataMillis = now;
        }

        public String hostname() {
            return hostname;
        }

        public long lastDataMillis() {
            return lastDataMillis;
        }
    }

    private final Map<String, Active> byGuid = new ConcurrentHashMap<>();

    @Override
    public long lastDataMillis(String machineGuid) {
        Active a = byGuid.get(key(machineGuid));
        return a == null ? -1 : a.lastDataMillis;
    }

    /** Registers a stream, closing the connection it replaces; returns its record. */
    Active register(String machineGuid, String hostname, Channel channel, long now) {
        Active fresh = new Active(channel, hostname, now);
        Active old = byGuid.put(key(machineGuid), fresh);
        if (old != null && old.channel != channel) {
            old.channel.close();
        }
        return fresh;
    }

    void unregister(String machineGuid, Active a) {
        byGuid.remove(key(machineGuid), a);
    }

    public boolean isConnected(String machineGuid) {
        return byGuid.containsKey(key(machineGuid));
    }

    public int connected() {
        return byGuid.size();
    }

    public Map<String, Active> snapshot() {
        return Map.copyOf(byGuid);
    }

    private static String key(String guid) {
        return guid.toLowerCase(java.util.Locale.ROOT);
    }
}
