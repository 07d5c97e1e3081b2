package io.strata.streaming.server;

import java.net.InetAddress;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Objects;

/**
 * The port's counts of open connections and of handshakes in progress, globally and per client
 * address, against {@link ServerLimits}. {@link #admit} is called at the accept, and the
 * {@link Ticket} it returns is told when the handshake ends and when the connection closes.
 *
 * <p>When {@code max handshakes in progress} is reached, a new connection that its address's caps let in
 * is not refused: it takes the place of a connection still in its handshake. The candidates are, in
 * order: the connections that have sent no byte, oldest first (they have had the longest to say what they
 * want, and an idle flood cannot lock out a client that speaks at once); only when none is left, the one
 * that has spoken first ({@link Ticket#spoke()}), so that a burst of new connections past the cap takes
 * the places of silent ones before those of requests already on their way, while connections that send a
 * byte and stall cannot hold the port either. The evicted connection is told through the {@code evict}
 * callback given to {@link #admit}; a connection whose handshake is over is never a candidate. The
 * candidates are kept in two insertion-ordered sets (silent ones in accept order, the others in the order
 * of their first bytes): admitting, speaking, completing, evicting and releasing are O(1).
 *
 * <p>Thread-safe: connections are accepted on several event loops; every change of the counts is made
 * under one lock, and the evict callback is called outside it (it must not block: the guard hands the
 * close to the evicted connection's own event loop).
 */
public final class ConnectionGate {

    /** Why a connection is refused, or {@link #NONE}. */
    public enum Refusal {
        NONE(null),
        CONNECTIONS("[web] web server max sockets"),
        CONNECTIONS_PER_ADDRESS("[web] max connections per client address"),
        HANDSHAKES_PER_ADDRESS("[web] max handshakes in progress per client address");

        private final String key;

        Refusal(String key) {
            this.key = key;
        }

        /** The configuration key whose limit was reached. */
        public String key() {
            return key;
        }
    }

    private static final class Counts {
        int open;
        int handshaking;
    }

    private final ServerLimits limits;
    private final Object lock = new Object();
    /** The admitted connections still in their handshake that have sent no byte, oldest first. Under {@link #lock}. */
    private final LinkedHashSet<Ticket> silent = new LinkedHashSet<>();
    /** The admitted connections still in their handshake that have sent bytes, first to speak first. Under {@link #lock}. */
    private final LinkedHashSet<Ticket> spoken = new LinkedHashSet<>();
    /** Only the addresses that have a connection open. Under {@link #lock}. */
    private final Map<InetAddress, Counts> byAddress = new HashMap<>();
    private int open;
    private int refusing;
    private long evictions;

    public ConnectionGate(ServerLimits limits) {
        this.limits = Objects.requireNonNull(limits, "limits");
    }

    public ServerLimits limits() {
        return limits;
    }

    /** A connection's place in the counts. Identity is what the set of handshakes holds it by. */
    public final class Ticket {
        private final InetAddress address;
        private final Runnable evict;
        private Refusal refusal = Refusal.NONE;
        private boolean handshakeOpen;
        private boolean released;
        private boolean evicted;
        private boolean completed;
        private boolean spoke;

        private Ticket(InetAddress address, Runnable evict) {
            this.address = address;
            this.evict = evict;
        }

        public Refusal refusal() {
            synchronized (lock) {
                return refusal;
            }
        }

        /**
         * The handshake is over (the protocol is known, the stream accepted); idempotent. After an
         * eviction it only records that the connection completed (see {@link #completedAfterEviction}).
         */
        public void handshakeDone() {
            synchronized (lock) {
                completed = true;
                endHandshake();
            }
        }

        /**
         * The connection's first bytes arrived (called on its event loop before they are handled); idempotent.
         * It is then evicted only when no connection in its handshake is silent.
         */
        public void spoke() {
            synchronized (lock) {
                if (!spoke && handshakeOpen) {
                    silent.remove(this);
                    spoken.add(this);
                }
                spoke = true;
            }
        }

        /**
         * Whether this connection was chosen for eviction and then completed its handshake before its
         * own event loop closed it: it is then a connection like any other, and is left open (its place
         * among the handshakes was given up at the eviction).
         */
        public boolean completedAfterEviction() {
            synchronized (lock) {
                return evicted && completed;
            }
        }

        /** Under {@link #lock}. */
        private void endHandshake() {
            if (handshakeOpen) {
                handshakeOpen = false;
                if (!silent.remove(this)) {
                    spoken.remove(this);
                }
                if (address != null) {
                    Counts c = byAddress.get(address);
                    if (c != null) {
                        c.handshaking--;
                    }
                }
            }
        }

        /** The connection closed; idempotent. */
        public void release() {
            synchronized (lock) {
                if (released) {
                    return;
                }
                endHandshake();
                released = true;
                if (refusal != Refusal.NONE) {
                    refusing--;
                    return;
                }
                open--;
                if (address != null) {
                    Counts c = byAddress.get(address);
                    if (c != null && --c.open <= 0) {
                        byAddress.remove(address);
                    }
                }
            }
        }
    }

    /**
     * Counts a new connection from {@code address} (null when not an IP connection), or says which
     * limit refuses it. A refused connection is counted apart ({@link #refusing()}) until released. At
     * {@code max handshakes in progress} a connection still in its handshake is evicted for this one (the
     * oldest silent one, or when none is silent the first to have spoken): its {@code evict} is run on
     * this thread once the counts are updated, and must only hand the close over (never block).
     */
    public Ticket admit(InetAddress address, Runnable evict) {
        Ticket t = new Ticket(address, Objects.requireNonNull(evict, "evict"));
        Ticket victim;
        synchronized (lock) {
            victim = admitLocked(t);
        }
        if (victim != null) {
            victim.evict.run();
        }
        return t;
    }

    /** Under {@link #lock}: sets {@code t}'s refusal or counts it; returns the connection it evicts, if any. */
    private Ticket admitLocked(Ticket t) {
        Counts c = t.address == null ? null : byAddress.get(t.address);
        // an address's own caps first: one address cannot evict the others' connections beyond its share
        if (c != null && c.open >= limits.maxConnectionsPerAddress()) {
            return refuse(t, Refusal.CONNECTIONS_PER_ADDRESS);
        }
        if (c != null && c.handshaking >= limits.maxHandshakesPerAddress()) {
            return refuse(t, Refusal.HANDSHAKES_PER_ADDRESS);
        }
        if (open >= limits.maxConnections()) {
            return refuse(t, Refusal.CONNECTIONS);
        }
        Ticket victim = null;
        if (silent.size() + spoken.size() >= limits.maxHandshakes()) {
            // the cap is at least 1, so one of the sets is not empty; a silent connection goes first
            victim = (silent.isEmpty() ? spoken : silent).iterator().next();
            victim.evicted = true;
            victim.endHandshake();
            evictions++;
        }
        open++;
        if (t.address != null) {
            if (c == null) {
                c = new Counts();
                byAddress.put(t.address, c);
            }
            c.open++;
            c.handshaking++;
        }
        t.handshakeOpen = true;
        silent.add(t);
        return victim;
    }

    /** Under {@link #lock}. */
    private Ticket refuse(Ticket t, Refusal why) {
        t.refusal = why;
        refusing++;
        return null;
    }

    /** Connections counted as open now. */
    public int open() {
        synchronized (lock) {
            return open;
        }
    }

    /** Connections in their handshake now. */
    public int handshaking() {
        synchronized (lock) {
            return silent.size() + spoken.size();
        }
    }

    /** Refused connections still waiting for their refusal to be written. */
    public int refusing() {
        synchronized (lock) {
            return refusing;
        }
    }

    /** Connections evicted so far to make room at {@code max handshakes in progress}. */
    public long evictions() {
        synchronized (lock) {
            return evictions;
        }
    }

    /** Open connections of {@code address}. */
    public int open(InetAddress address) {
        synchronized (lock) {
            Counts c = byAddress.get(address);
            return c == null ? 0 : c.open;
        }
    }

    /** Addresses with a connection open (the size of the per-address map). */
    public int addresses() {
        synchronized (lock) {
            return byAddress.size();
        }
    }
}
