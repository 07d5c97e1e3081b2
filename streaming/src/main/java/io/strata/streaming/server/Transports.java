package io.strata.streaming.server;

import io.netty.channel.EventLoopGroup;
import io.netty.channel.IoEventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollSocketChannel;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.util.concurrent.Future;

import java.util.concurrent.TimeUnit;

/**
 * The transport of outgoing streams: Linux epoll where it loads (it can set
 * {@code TCP_USER_TIMEOUT}, so that data nobody acknowledges ends the connection within the
 * sender's timeout, as after a silent network partition), else NIO.
 */
public final class Transports {

    /** See {@link #stop}: how long a stopping loop must see no new task before it ends. */
    static final long STOP_QUIET_PERIOD_MILLIS = 50;
    /** The longest a stopping loop waits for that quiet. */
    static final long STOP_TIMEOUT_MILLIS = 1_000;

    private Transports() {
    }

    public static boolean epoll() {
        return Epoll.isAvailable();
    }

    /** An event loop group of the preferred transport. */
    public static EventLoopGroup group(int threads) {
        return new MultiThreadIoEventLoopGroup(threads, epoll() ? EpollIoHandler.newFactory() : NioIoHandler.newFactory());
    }

    /**
     * Starts stopping {@code group}; the answer completes when its threads have ended. A quiet
     * period, not zero: a loop that stops with no quiet period ends right after running the tasks
     * it still holds, so a channel registered by one of them (a connection attempt a closing
     * sender made just before) is never closed and its socket outlives the group.
     */
    public static Future<?> stop(EventLoopGroup group) {
        return group.shutdownGracefully(STOP_QUIET_PERIOD_MILLIS, STOP_TIMEOUT_MILLIS, TimeUnit.MILLISECONDS);
    }

    /** True when {@code group} runs epoll channels. */
    public static boolean isEpoll(EventLoopGroup group) {
        return epoll() && group instanceof IoEventLoopGroup g && g.isIoType(EpollIoHandler.class);
    }

    /** The client socket channel class that fits {@code group}. */
    public static Class<? extends SocketChannel> socketChannel(EventLoopGroup group) {
        return isEpoll(group) ? EpollSocketChannel.class : NioSocketChannel.class;
    }
}
