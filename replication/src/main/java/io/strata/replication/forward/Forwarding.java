package io.strata.replication.forward;

import io.netty.channel.EventLoopGroup;
import io.strata.engine.StorageEngine;
import io.strata.streaming.auth.StreamConfig;
import io.strata.streaming.receiver.ReceivedStreamListener;
import io.strata.streaming.sender.SenderSession;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.Closeable;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;
import io.strata.streaming.server.Transports;
import io.strata.engine.thread.StrataThreads;
import io.strata.engine.time.Clocks;

/**
 * A parent's forwarding of the hosts it receives (Netdata's proxy): for every accepted stream whose
 * API-key or machine-GUID section enables the proxy, a {@link HostForwarder} to the section's
 * destination, alive as long as the received stream.
 *
 * <p>In an active-active cluster every parent forwards to the others; a host reaches every parent
 * once, because a parent that already receives it refuses a second stream of it ("already
 * streaming", or the forwarded copy gives way to the host's own connection: fewer hops win).
 */
public final class Forwarding implements ReceivedStreamListener, Closeable {

    private static final Logger LOG = LoggerFactory.getLogger(Forwarding.class);

    /** One forwarded host, for status pages and tests. */
    public record Status(String hostname, String machineGuid, String destination, boolean connected, long sentBytes) {
    }

    private final StorageEngine engine;
    private final StreamConfig.SenderSettings template;
    private final EventLoopGroup group;
    private final Set<HostForwarder> active = ConcurrentHashMap.newKeySet();
    private final ExecutorService stopper = StrataThreads.newSingleThreadExecutor(r -> {
        Thread t = StrataThreads.newThread(r, "strata-forward-stop");
        t.setDaemon(true);
        return t;
    });
    private final Clock clock;
    private volatile boolean closed;

    /**
     * @param template the parent's own {@code [stream]} settings: timeouts, reconnect delay, buffer
     *                 size, compression and TLS of the forwarding connections (their destination
     *                 and key come from the received host's section)
     */
    public Forwarding(StorageEngine engine, StreamConfig.SenderSettings template) {
        this(engine, template, Clocks.system());
    }

    /** @param clock the unix time of forwarded definitions and replication answers */
    public Forwarding(StorageEngine engine, StreamConfig.SenderSettings template, Clock clock) {
        this.engine = engine;
        this.template = template;
        this.clock = clock;
        this.group = Transports.group(1);
    }

    @Override
    public Observer accepted(ReceivedStream stream) {
        if (closed || !stream.settings().proxyEnabled()) {
            return Observer.NONE;
        }
        HostForwarder f = new HostForwarder(stream, engine, template, group, this, clock);
        active.add(f);
        LOG.info("STREAM {} [forward]: will forward to '{}' (hops {})", f.hostname(),
                stream.settings().proxyDestination(), stream.request().hops() + 1);
        return f;
    }

    /** The received stream ended: stop its forwarding connection (off the event loop: it waits for the thread). */
    void retire(HostForwarder f, String reason) {
        if (active.remove(f)) {
            LOG.info("STREAM {} [forward]: the received stream ended ({}); stopping its forwarding", f.hostname(), reason);
            if (!closed) {
                stopper.execute(f::stop);
            } else {
                f.stop();
            }
        }
    }

    public List<Status> status() {
        List<Status> out = new ArrayList<>();
        for (HostForwarder f : active) {
            SenderSession s = f.sender().session();
            out.add(new Status(f.hostname(), f.machineGuid(), s == null ? "" : s.destination().toString(), s != null,
                    s == null ? 0 : s.sentBytes()));
        }
        return out;
    }

    @Override
    public void close() {
        closed = true;
        for (HostForwarder f : List.copyOf(active)) {
            active.remove(f);
            f.stop();
        }
        stopper.shutdown();
        try {
            stopper.awaitTermination(15, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        Transports.stop(group).awaitUninterruptibly(5, TimeUnit.SECONDS);
    }
}
