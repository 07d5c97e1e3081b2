package io.strata.streaming.server;

import java.net.InetAddress;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The port's counts of open connections and of handshakes in progress, globally and per client
 * address, against {@link ServerLimits}. {@link #admit} is called at the accept, and the
 * {@link Ticket} it returns is told when the handshake ends and when the connection closes.
 * Thread-safe; the per-address map holds only addresses that have a connection open.
 */
public final class ConnectionGate {

    /** Why a connection is refused, or {@link #NONE}. */
    public enum Refusal {
        NONE(null),
        CONNECTIONS("[web] web server max sockets"),
        CONNECTIONS_PER_ADDRESS("[web] max connections per client address"),
        HANDSHAKES("[web] max handshakes in progress"),
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
    private final AtomicInteger open = new AtomicInteger();
    private final AtomicInteger handshaking = new AtomicInteger();
    private final AtomicInteger refusing = new AtomicInteger();
    private final ConcurrentHashMap<InetAddress, Counts> byAddress = new ConcurrentHashMap<>();

    public ConnectionGate(ServerLimits limits) {
        this.limits = Objects.requireNonNull(limits, "limits");
    }

    public ServerLimits limits() {
        return limits;
    }

    /** A connection's place in the counts. */
    public final class Ticket {
        private final InetAddress address;
        private final Refusal refusal;
        private boolean handshakeOpen;
        private boolean released;

        private Ticket(InetAddress address, Refusal refusal) {
            this.address = address;
            this.refusal = refusal;
            this.handshakeOpen = refusal == Refusal.NONE;
        }

        public Refusal refusal() {
            return refusal;
        }

        /** The handshake is over (the protocol is known, the stream accepted); idempotent. */
        public synchronized void handshakeDone() {
            if (handshakeOpen) {
                handshakeOpen = false;
                handshaking.decrementAndGet();
                if (address != null) {
                    byAddress.computeIfPresent(address, (a, c) -> {
                        c.handshaking--;
                        return c;
                    });
                }
            }
        }

        /** The connection closed; idempotent. */
        public synchronized void release() {
            if (released) {
                return;
            }
            handshakeDone();
            released = true;
            if (refusal != Refusal.NONE) {
                refusing.decrementAndGet();
                return;
            }
            open.decrementAndGet();
            if (address != null) {
                byAddress.computeIfPresent(address, (a, c) -> --c.open <= 0 ? null : c);
            }
        }
    }

    /**
     * Counts a new connection from {@code address} (null when not an IP connection), or says which
     * limit refuses it. A refused connection is counted apart ({@link #refusing()}) until released.
     */
    public Ticket admit(InetAddress address) {
        Refusal r = tryAdmit(address);
        if (r != Refusal.NONE) {
            refusing.incrementAndGet();
        }
        return new Ticket(address, r);
    }

    private Refusal tryAdmit(InetAddress address) {
        if (open.incrementAndGet() > limits.maxConnections()) {
            open.decrementAndGet();
            return Refusal.CONNECTIONS;
        }
        if (handshaking.incrementAndGet() > limits.maxHandshakes()) {
            handshaking.decrementAndGet();
            open.decrementAndGet();
            return Refusal.HANDSHAKES;
        }
        if (address == null) {
            return Refusal.NONE;
        }
        Refusal[] out = {Refusal.NONE};
        byAddress.compute(address, (a, c) -> {
            if (c == null) {
                c = new Counts();
            }
            if (c.open >= limits.maxConnectionsPerAddress()) {
                out[0] = Refusal.CONNECTIONS_PER_ADDRESS;
            } else if (c.handshaking >= limits.maxHandshakesPerAddress()) {
                out[0] = Refusal.HANDSHAKES_PER_ADDRESS;
            } else {
                c.open++;
                c.handshaking++;
            }
            return c.open == 0 ? null : c;
        });
        if (out[0] != Refusal.NONE) {
            handshaking.decrementAndGet();
            open.decrementAndGet();
        }
        return out[0];
    }

    /** Connections counted as open now. */
    public int open() {
        return open.get();
    }

    /** Connections in their handshake now. */
    public int handshaking() {
        return handshaking.get();
    }

    /** Refused connections still waiting for their refusal to be written. */
    public int refusing() {
        return refusing.get();
    }

    /** Open connections of {@code address}. */
    public int open(InetAddress address) {
        Counts c = byAddress.get(address);
        return c == null ? 0 : c.open;
    }

    /** Addresses with a connection open (the size of the per-address map). */
    public int addresses() {
        return byAddress.size();
    }
}
