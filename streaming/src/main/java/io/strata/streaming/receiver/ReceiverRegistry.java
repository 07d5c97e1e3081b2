package io.strata.streaming.receiver;

import io.netty.channel.Channel;
import io.strata.streaming.auth.StreamAuthorizer;

import io.strata.engine.time.Clocks;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.Locale;
import java.util.function.LongSupplier;

/**
 * The streams a parent is receiving, by machine GUID: a second connection of a host that still
 * sends data is refused ("already streaming"), one whose old connection went quiet, or that comes
 * from closer to the host (fewer hops than a forwarded one), replaces it.
 *
 * <p>It also remembers, per host, when its latest stream that had caught up (every chart live)
 * ended, and whether this parent handed the host's direct stream over to its peers
 * ({@link PeerHandOver}, docs/replication.md "A parent refilled from its peers").
 */
public final class ReceiverRegistry implements StreamAuthorizer.LiveReceivers {

    /** Numbers the streams registered in this process: {@link Active#serial()}. */
    private static final AtomicLong SERIALS = new AtomicLong();

    /** One live stream. */
    public static final class Active {
        private final long serial = SERIALS.incrementAndGet();
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

        /** This stream's number, unique in the process: tells one stream of a host from the next. */
        public long serial() {
            return serial;
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

        /**
         * Hands {@code (after, before]} of chart {@code chartId}, which this parent lacks and its
         * peers did not fill, to this stream: on the stream's event loop, its receiver keeps it with
         * the holes its answers left and asks the sender for it ({@code StreamHoles}, its backoff and
         * bounds). Any thread; never touches the receiver's state on the calling one.
         *
         * @return false when the stream is not set up yet or closed (nothing handed)
         */
        public boolean askHole(String chartId, long after, long before) {
            ReceiverParser p = parser;
            if (p == null || !channel.isActive()) {
                return false;
            }
            try {
                channel.eventLoop().execute(() -> p.holeFromRepair(chartId, after, before));
                return true;
            } catch (RejectedExecutionException e) {
                return false;
            }
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

    /** What this parent remembers of a host between its streams. */
    private static final class HostRecord {
        /** Wall second at which the host's latest caught-up stream ended; -1: none since start. */
        volatile long caughtUpEndSecond = -1;
        /** Wall millis of the latest hand-over of the host's direct stream; -1: none. */
        volatile long handedOverMillis = -1;
        /** The host's next direct stream is refused until then (one shot); 0: not refused. */
        volatile long refuseDirectUntilMillis;
    }

    private final Map<String, Active> byGuid = new ConcurrentHashMap<>();
    private final Map<String, HostRecord> records = new ConcurrentHashMap<>();
    private final LongSupplier wallMillis;
    private volatile PeerLookup peerLookup = PeerLookup.NONE;
    /** While set, no receiver reads from its socket: TCP pushes back and the children buffer. */
    private volatile boolean readingPaused;
    /**
     * Orders a registration's pausing of its new socket with a pause or resume of every socket: a
     * resume between the registration's look at {@link #readingPaused} and its pausing would
     * otherwise leave the new stream paused for good.
     */
    private final Object pauseLock = new Object();

    public ReceiverRegistry() {
        this(Clocks::wallMillis);
    }

    /** With the wall clock given (tests move it). */
    public ReceiverRegistry(LongSupplier wallMillis) {
        this.wallMillis = wallMillis;
    }

    /** How a stream's {@link PeerHandOver} asks this parent's peers what they hold of a host. */
    public void setPeerLookup(PeerLookup lookup) {
        this.peerLookup = lookup == null ? PeerLookup.NONE : lookup;
    }

    public PeerLookup peerLookup() {
        return peerLookup;
    }

    /** The wall clock this registry reads. */
    public long wallMillis() {
        return wallMillis.getAsLong();
    }

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
            recordEnd(machineGuid, old);
            old.channel.close();
        }
        synchronized (pauseLock) {
            if (readingPaused) {
                channel.config().setAutoRead(false);
            }
        }
        return fresh;
    }

    void unregister(String machineGuid, Active a) {
        if (byGuid.remove(key(machineGuid), a)) {
            recordEnd(machineGuid, a);
        }
    }

    /** A stream ends: if every chart of it was live, this parent held the host up to now. */
    private void recordEnd(String machineGuid, Active a) {
        ReceiverParser p = a.parser;
        if (p != null && p.chartCount() > 0 && p.chartsReplicatingFromAnyThread() == 0) {
            record(machineGuid).caughtUpEndSecond = wallMillis.getAsLong() / 1000;
        }
    }

    private HostRecord record(String machineGuid) {
        return records.computeIfAbsent(key(machineGuid), k -> new HostRecord());
    }

    /**
     * The wall second at which the host's latest stream that had caught up (every chart live)
     * ended, -1 when none did since this process started.
     */
    public long caughtUpEndSecond(String machineGuid) {
        HostRecord r = records.get(key(machineGuid));
        return r == null ? -1 : r.caughtUpEndSecond;
    }

    /** Wall millis of the host's latest hand-over to the peers, -1 when none. */
    public long handedOverMillis(String machineGuid) {
        HostRecord r = records.get(key(machineGuid));
        return r == null ? -1 : r.handedOverMillis;
    }

    /**
     * Records that the host's direct stream is being handed over to the peers: its next direct
     * stream (hops 1) within {@code refuseForMillis} is refused once as "already streaming".
     */
    void handOver(String machineGuid, long refuseForMillis) {
        HostRecord r = record(machineGuid);
        long now = wallMillis.getAsLong();
        r.handedOverMillis = now;
        r.refuseDirectUntilMillis = now + refuseForMillis;
    }

    /**
     * True (once) when a stream of the host with these {@code hops} must be refused because its
     * direct stream was just handed over to the peers; a forwarded copy (hops above 1) is never
     * refused by this.
     */
    public boolean refuseHandedOver(String machineGuid, int hops) {
        if (hops > 1) {
            return false;
        }
        HostRecord r = records.get(key(machineGuid));
        if (r == null || r.refuseDirectUntilMillis == 0) {
            return false;
        }
        boolean refuse = wallMillis.getAsLong() < r.refuseDirectUntilMillis;
        r.refuseDirectUntilMillis = 0;
        return refuse;
    }

    /**
     * Stops (or resumes) reading from every received stream's socket, and from those accepted
     * while paused: the parent's answer to a disk that does not keep up. What the children cannot
     * buffer meanwhile, replication fills once they reconnect. Any thread.
     */
    public void setReadingPaused(boolean paused) {
        synchronized (pauseLock) {
            readingPaused = paused;
            for (Active a : byGuid.values()) {
                a.channel.config().setAutoRead(!paused);
            }
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

    /** The stream of the machine GUID live now, or null. */
    public Active active(String machineGuid) {
        return byGuid.get(key(machineGuid));
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
