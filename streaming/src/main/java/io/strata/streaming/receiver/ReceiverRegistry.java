package io.strata.streaming.receiver;

import io.netty.channel.Channel;
import io.strata.streaming.auth.StreamAuthorizer;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.Locale;

/**
 * The streams a parent is receiving, by machine GUID: a second connection of a host that still
 * sends data is refused ("already streaming"), one whose old connection went quiet, or that comes
 * from closer to the host (fewer hops than a forwarded one), replaces it.
 */
public final class ReceiverRegistry implements StreamAuthorizer.LiveReceivers {

    /** One live stream. */
    public static final class Active {
        final Channel channel;
        final String hostname;
        final int hops;
        volatile long lastDataMillis;
        /** Set once the stream's parser exists (just after registering). */
        volatile ReceiverParser parser;

        Active(Channel channel, String hostname, int hops, long now) {
            this.channel = channel;
            this.hostname = hostname;
            this.hops = hops;
            this.lastDataMillis = now;
        }

        /** 1 for a host streaming itself, more for a host forwarded by other parents. */
        public int hops() {
            return hops;
        }

        public String hostname() {
            return hostname;
        }

        public long lastDataMillis() {
            return lastDataMillis;
        }

        /** Charts of this stream still replicating (0 before the stream is set up). */
        public int chartsReplicating() {
            ReceiverParser p = parser;
            return p == null ? 0 : p.chartsReplicatingFromAnyThread();
        }

        /** See {@link ReceiverParser#replicationLagSeconds(long)}; 0 before the stream is set up. */
        public long replicationLagSeconds(long nowSeconds) {
            ReceiverParser p = parser;
            return p == null ? 0 : p.replicationLagSeconds(nowSeconds);
        }
    }

    private final Map<String, Active> byGuid = new ConcurrentHashMap<>();
    /** While set, no receiver reads from its socket: TCP pushes back and the children buffer. */
    private volatile boolean readingPaused;

    @Override
    public long lastDataMillis(String machineGuid) {
        Active a = byGuid.get(key(machineGuid));
        return a == null ? -1 : a.lastDataMillis;
    }

    @Override
    public int liveHops(String machineGuid) {
        Active a = byGuid.get(key(machineGuid));
        return a == null ? -1 : a.hops;
    }

    /** Registers a stream, closing the connection it replaces; returns its record. */
    Active register(String machineGuid, String hostname, int hops, Channel channel, long now) {
        Active fresh = new Active(channel, hostname, hops, now);
        Active old = byGuid.put(key(machineGuid), fresh);
        if (old != null && old.channel != channel) {
            old.channel.close();
        }
        if (readingPaused) {
            channel.config().setAutoRead(false);
        }
        return fresh;
    }

    void unregister(String machineGuid, Active a) {
        byGuid.remove(key(machineGuid), a);
    }

    /**
     * Stops (or resumes) reading from every received stream's socket, and from those accepted
     * while paused: the parent's answer to a disk that does not keep up. What the children cannot
     * buffer meanwhile, replication fills once they reconnect. Any thread.
     */
    public void setReadingPaused(boolean paused) {
        readingPaused = paused;
        for (Active a : byGuid.values()) {
            a.channel.config().setAutoRead(!paused);
        }
    }

    public boolean readingPaused() {
        return readingPaused;
    }

    /**
     * Runs {@code action} unless a stream of the machine GUID is live, with no stream of it
     * registering meanwhile (a host's removal must not race with the host connecting). Any thread;
     * {@code action} must be short (it holds the registration of that GUID).
     *
     * @return false, without running it, when a stream of the GUID is live
     */
    public boolean unlessConnected(String machineGuid, Runnable action) {
        boolean[] live = {false};
        byGuid.compute(key(machineGuid), (k, a) -> {
            if (a != null) {
                live[0] = true;
                return a;
            }
            action.run();
            return null;
        });
        return !live[0];
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
        return guid.toLowerCase(Locale.ROOT);
    }
}
