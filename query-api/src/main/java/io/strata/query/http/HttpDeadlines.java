package io.strata.query.http;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.util.concurrent.ScheduledFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.concurrent.TimeUnit;

/**
 * The deadlines of one HTTP connection, ahead of the HTTP codec:
 * <ul>
 *   <li>a request must be whole within {@code [web] timeout for first request} of its first byte (the
 *       first request: of the handler being added, when the port has seen the first bytes), so a client
 *       that sends a byte a second cannot hold the connection;</li>
 *   <li>a connection with nothing being read or answered for {@code [web] disconnect idle clients after
 *       seconds} closes (keep-alive connections left open by browsers);</li>
 *   <li>so does one whose answers are queued but not taken by the client for as long (a client that
 *       pipelines requests and never reads).</li>
 * </ul>
 * One timer at a time per connection, armed for the nearest deadline. Runs on the connection's event loop.
 */
public final class HttpDeadlines extends ChannelInboundHandlerAdapter {

    private static final Logger LOG = LoggerFactory.getLogger(HttpDeadlines.class);

    private final long requestNanos;
    private final long idleNanos;
    private final int requestSeconds;
    private final int idleSeconds;
    private Runnable firstRequestWhole;
    private ChannelHandlerContext ctx;
    /** When the request not yet whole started, or -1. */
    private long partialSince = -1;
    /** Requests whole whose answers are not yet written out. */
    private int unanswered;
    private long lastActivity;
    private ScheduledFuture<?> timer;
    private long timerAt;

    public HttpDeadlines(int requestSeconds, int idleSeconds) {
        this(requestSeconds, idleSeconds, null);
    }

    /** @param firstRequestWhole called once when the first request is whole (may be null) */
    public HttpDeadlines(int requestSeconds, int idleSeconds, Runnable firstRequestWhole) {
        this.firstRequestWhole = firstRequestWhole;
        this.requestSeconds = requestSeconds;
        this.idleSeconds = idleSeconds;
        this.requestNanos = TimeUnit.SECONDS.toNanos(requestSeconds);
        this.idleNanos = TimeUnit.SECONDS.toNanos(idleSeconds);
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        this.ctx = ctx;
        long now = System.nanoTime();
        partialSince = now;
        lastActivity = now;
        arm(now);
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (msg instanceof ByteBuf b && b.isReadable()) {
            long now = System.nanoTime();
            lastActivity = now;
            if (partialSince < 0) {
                partialSince = now;
                arm(now);
            }
        }
        ctx.fireChannelRead(msg);
    }

    /** A whole request reached the API handler. */
    void requestReceived() {
        Runnable first = firstRequestWhole;
        if (first != null) {
            firstRequestWhole = null;
            first.run();
        }
        partialSince = -1;
        unanswered++;
    }

    /** An answer was written out to the socket (or given up). */
    void answerWritten() {
        if (unanswered > 0) {
            unanswered--;
        }
        long now = System.nanoTime();
        lastActivity = now;
        arm(now);
    }

    private long nextDeadline() {
        long idle = lastActivity + idleNanos;
        if (partialSince >= 0 && unanswered == 0) {
            return Math.min(idle, partialSince + requestNanos);
        }
        return idle;
    }

    private void arm(long now) {
        long at = nextDeadline();
        if (timer != null) {
            if (timerAt <= at) {
                return; // fires earlier; it re-arms then
            }
            timer.cancel(false);
        }
        timerAt = at;
        timer = ctx.executor().schedule(this::check, Math.max(0, at - now), TimeUnit.NANOSECONDS);
    }

    private void check() {
        timer = null;
        if (!ctx.channel().isActive()) {
            return;
        }
        long now = System.nanoTime();
        if (partialSince >= 0 && unanswered == 0 && now - partialSince >= requestNanos) {
            LOG.debug("{}: closing: no whole request within {} s ([web] timeout for first request)",
                    ctx.channel().remoteAddress(), requestSeconds);
            ctx.close();
        } else if (now - lastActivity >= idleNanos) {
            LOG.debug("{}: closing: {} for {} s ([web] disconnect idle clients after seconds)",
                    ctx.channel().remoteAddress(), unanswered > 0 ? "answers not taken" : "idle", idleSeconds);
            ctx.close();
        } else {
            arm(now);
        }
    }

    @Override
    public void handlerRemoved(ChannelHandlerContext ctx) {
        if (timer != null) {
            timer.cancel(false);
            timer = null;
        }
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) throws Exception {
        handlerRemoved(ctx);
        super.channelInactive(ctx);
    }
}
