package io.strata.streaming.receiver;

import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.timeout.ReadTimeoutHandler;

import java.util.concurrent.TimeUnit;

/**
 * The receive timeout of an accepted stream ({@code [stream] timeout seconds}): the stream is closed
 * when the child sent nothing for that long while this parent was reading.
 *
 * <p>Netdata 1.37.1's parent reads a stream with a blocking {@code read()} under {@code SO_RCVTIMEO}:
 * what the child sent while the parent did not read (its process stopped, its receiver thread busy
 * storing) is read first, and only a read that waits that long for a byte times out. An idle timer
 * on an event loop differs in two ways, both fixed here:
 * <ul>
 *   <li>when this process is stopped longer than the timeout (SIGSTOP, then SIGCONT), the event
 *       loop may run its overdue timer before it reads what waits in the socket (seen in 2 of 3
 *       stop/continue cycles of a NIO loop with a byte waiting): every stream the parent received
 *       was closed, the children's data unread. A timeout is therefore confirmed
 *       {@link #CONFIRM_MILLIS} later, after the event loop's next reads: any read meanwhile keeps
 *       the stream;</li>
 *   <li>while this parent pauses reading ({@link ReceiverRegistry#setReadingPaused}: its disk is
 *       behind), the children are not silent, they wait: no timeout then (the timer is re-armed).</li>
 * </ul>
 * Event loop only.
 */
final class ReceiveTimeout extends ReadTimeoutHandler {

    /** How long after the timer a timeout is confirmed, the event loop having read what waited. */
    static final long CONFIRM_MILLIS = 1000;

    private long reads;
    private boolean confirming;

    ReceiveTimeout(int seconds) {
        super(seconds);
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) throws Exception {
        reads++;
        super.channelRead(ctx, msg);
    }

    @Override
    protected void readTimedOut(ChannelHandlerContext ctx) {
        if (!ctx.channel().config().isAutoRead() || confirming) {
            // not reading (paused): the timer fires again a whole timeout later
            return;
        }
        confirming = true;
        long seen = reads;
        ctx.executor().schedule(() -> {
            confirming = false;
            if (reads == seen && ctx.channel().isActive() && ctx.channel().config().isAutoRead()) {
                timedOut(ctx);
            }
        }, CONFIRM_MILLIS, TimeUnit.MILLISECONDS);
    }

    private void timedOut(ChannelHandlerContext ctx) {
        try {
            super.readTimedOut(ctx);
        } catch (Exception e) {
            ctx.fireExceptionCaught(e);
        }
    }
}
