package io.strata.streaming.server;

import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelPipeline;
import io.netty.handler.ssl.SslHandler;
import io.netty.util.concurrent.ScheduledFuture;
import io.strata.streaming.handshake.HandshakeReplies;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Set;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;

/**
 * First handler of every connection of the port: applies {@code [web] allow connections from}, takes
 * the connection's place in the {@link ConnectionGate}, and closes it when its handshake is not over
 * within {@code [web] timeout for first request} (a client that connects and says nothing, or says it
 * one byte a second, holds a socket for that long at most). At {@code [web] max handshakes in progress} the
 * gate may evict this connection for a newer one while it is still in its handshake: it is then closed,
 * with Netdata's busy text or an HTTP 503 when it has shown its protocol. It tells the gate when the first
 * bytes arrive (connections that have sent none are evicted first), and stays in the pipeline, passing
 * every message on untouched, to give the connection's place back when it closes.
 */
public final class ConnectionGuard extends ChannelInboundHandlerAdapter {

    private static final Logger LOG = LoggerFactory.getLogger(ConnectionGuard.class);
    /** How long a refused connection may take to show its protocol (for a refusal it understands). */
    static final int REFUSAL_DEADLINE_SECONDS = 2;

    private final ConnectionGate gate;
    private final Listener listener;
    private final WebAccessRules rules;
    private final PerAddressLogLimiter logLimiter;
    private volatile ConnectionGate.Ticket ticket;
    private volatile ScheduledFuture<?> deadline;
    private InetAddress address;
    private Set<WebPermission> permissions;
    private boolean tls;
    /** This guard's context, for an eviction decided on another thread. */
    private ChannelHandlerContext context;
    /** Whether a byte has arrived (the gate evicts connections that have sent none first). Event loop only. */
    private boolean spoke;
    /** What the port made of the first bytes; set on the event loop, read by tests from others. */
    private volatile Protocol protocol = Protocol.UNKNOWN;

    /** What a connection turned out to speak, as far as its refusal is concerned. */
    enum Protocol {
        /** Nothing, or not enough to tell (or a TLS handshake not over): a refusal cannot be understood. */
        UNKNOWN,
        /** A {@code STREAM} request: refused with Netdata's busy text. */
        STREAM,
        /** An HTTP request: refused with a 503. */
        HTTP
    }

    public ConnectionGuard(ConnectionGate gate, Listener listener, WebAccessRules rules,
                           PerAddressLogLimiter logLimiter) {
        this.gate = gate;
        this.listener = listener;
        this.rules = rules;
        this.logLimiter = logLimiter;
    }

    /** The guard of {@code channel}, or null when it has none (a pipeline built without one). */
    public static ConnectionGuard of(Channel channel) {
        return channel.pipeline().get(ConnectionGuard.class);
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) throws Exception {
        if (ctx.channel().remoteAddress() instanceof InetSocketAddress a) {
            address = a.getAddress();
        }
        if (!rules.connectionAllowed(address)) {
            log(ctx, "connection refused by [web] allow connections from");
            ctx.close();
            return;
        }
        context = ctx;
        ticket = gate.admit(address, this::evictedByGate);
        int seconds = gate.limits().firstRequestTimeoutSeconds();
        if (ticket.refusal() != ConnectionGate.Refusal.NONE) {
            if (gate.refusing() > Math.max(64, gate.limits().maxHandshakes())) {
                // too many to even answer: the client sees the connection closed
                log(ctx, "connection closed without a reply: " + ticket.refusal().key()
                        + " reached and too many refusals are being written already");
                ctx.close();
                return;
            }
            seconds = Math.min(seconds, REFUSAL_DEADLINE_SECONDS);
        }
        int s = seconds;
        deadline = ctx.executor().schedule(() -> expired(ctx, s), seconds, TimeUnit.SECONDS);
        super.channelActive(ctx);
    }

    /**
     * The gate gave this connection's place among the handshakes in progress to a newer one. Called on
     * the accepting thread of that one, which may be another event loop: the close is done on this
     * connection's own loop.
     */
    private void evictedByGate() {
        Channel ch = context.channel();
        try {
            ch.eventLoop().execute(this::evict);
        } catch (RejectedExecutionException e) {
            ch.close(); // the loop is stopping: it closes its connections itself
        }
    }

    /** On the event loop: closes the evicted connection, with the refusal its protocol understands. */
    private void evict() {
        Channel ch = context.channel();
        if (!ch.isActive() || ticket.completedAfterEviction()) {
            return; // closed meanwhile, or its handshake ended before this ran: it stays
        }
        cancelDeadline();
        String why = "[web] max handshakes in progress (" + gate.limits().maxHandshakes()
                + ") reached: " + (spoke ? "none in its handshake is silent, the first of them to have spoken"
                : "the oldest silent connection still in its handshake") + " makes room for a new one";
        byte[] reply = switch (protocol) {
            case STREAM -> HandshakeReplies.BUSY.getBytes(StandardCharsets.US_ASCII);
            case HTTP -> PortUnificationHandler.httpReply(503, "Service Unavailable", HandshakeReplies.BUSY);
            case UNKNOWN -> null;
        };
        ChannelHandlerContext from = reply == null ? null : replyContext();
        if (from == null) {
            log("evicted", "closing (nothing said yet): " + why);
            context.close();
            return;
        }
        log("evicted", (protocol == Protocol.STREAM ? "STREAM refused (busy): " : "HTTP connection refused (503): ")
                + why);
        ch.config().setAutoRead(false);
        from.writeAndFlush(Unpooled.wrappedBuffer(reply)).addListener(ChannelFutureListener.CLOSE);
    }

    /**
     * The context to write a raw refusal from: the first handler after the transport (this guard, or the
     * TLS handler when there is one), so that the bytes are encrypted when they must be and pass none of
     * the protocol's own encoders (an HTTP codec expects its own messages); null when there is none.
     */
    private ChannelHandlerContext replyContext() {
        ChannelPipeline p = context.pipeline();
        List<String> names = p.names();
        ChannelHandlerContext tlsCtx = p.context(SslHandler.class);
        int at = names.indexOf(tlsCtx != null ? tlsCtx.name() : context.name());
        if (at < 0 || at + 1 >= names.size()) {
            return null;
        }
        return p.context(names.get(at + 1));
    }

    /** The port found out what the connection speaks (for the refusal of an eviction). */
    void protocol(Protocol p) {
        protocol = p;
    }

    Protocol protocol() {
        return protocol;
    }

    private void expired(ChannelHandlerContext ctx, int seconds) {
        deadline = null;
        if (ctx.channel().isActive()) {
            log(ctx, "closing: the handshake was not over within " + seconds
                    + " s ([web] timeout for first request)");
            ctx.close();
        }
    }

    /**
     * The handshake is over: the deadline no longer applies and the connection stops counting as one.
     * May be called from any thread (the HTTP side calls it when the first request is whole).
     */
    public void handshakeDone() {
        ConnectionGate.Ticket t = ticket;
        if (t != null) {
            t.handshakeDone();
        }
        cancelDeadline();
    }

    /** The guard's deadline no longer applies (another handler has its own). */
    public void cancelDeadline() {
        ScheduledFuture<?> d = deadline;
        if (d != null) {
            d.cancel(false);
            deadline = null;
        }
    }

    /** Why the gate refuses this connection ({@link ConnectionGate.Refusal#NONE} when it does not). */
    public ConnectionGate.Refusal refusal() {
        return ticket == null ? ConnectionGate.Refusal.NONE : ticket.refusal();
    }

    /** What this client may do through this listener. */
    public Set<WebPermission> permissions() {
        if (permissions == null) {
            permissions = rules.permissions(address, listener);
        }
        return permissions;
    }

    public int firstRequestTimeoutSeconds() {
        return gate.limits().firstRequestTimeoutSeconds();
    }

    public Listener listener() {
        return listener;
    }

    /** Marks the connection as TLS (set by the handler that found a ClientHello). */
    void tls(boolean on) {
        tls = on;
    }

    public boolean isTls() {
        return tls;
    }

    /** The client's address as text (what {@code allow from} patterns match). */
    public String clientAddress() {
        return address == null ? "UNKNOWN" : address.getHostAddress();
    }

    /** Logs {@code message} about this client, at most once per address and message every 10 s. */
    public void log(ChannelHandlerContext ctx, String message) {
        log(message, message);
    }

    /**
     * Logs {@code message} (already safe: peer text escaped) at most once per client address and
     * {@code reason} every 10 s, with the count of those left out; the reason is what repeats (a
     * refusal's kind), the message may differ each time (hostnames, GUIDs).
     */
    public void log(String reason, String message) {
        String who = clientAddress();
        long suppressed = logLimiter.admit(who, reason, System.nanoTime());
        if (suppressed >= 0) {
            LOG.info("{}: {}{}", who, message, PerAddressLogLimiter.suppressedNote(suppressed));
        }
    }

    /** The first bytes tell the gate that this connection has spoken; then every message passes untouched. */
    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) throws Exception {
        if (!spoke) {
            spoke = true;
            ConnectionGate.Ticket t = ticket;
            if (t != null) {
                t.spoke();
            }
        }
        super.channelRead(ctx, msg);
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) throws Exception {
        if (deadline != null) {
            deadline.cancel(false);
            deadline = null;
        }
        if (ticket != null) {
            ticket.release();
        }
        super.channelInactive(ctx);
    }
}
