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

/**
 * The transport of outgoing streams: Linux epoll where it loads (it can set
 * {@code TCP_USER_TIMEOUT}, so that data nobody acknowledges ends the connection within the
 * sender's timeout, as after a silent network partition), else NIO.
 */
public final class Transports {

    private Transports() {
    }

    public static boolean epoll() {
        return Epoll.isAvailable();
    }

    /** An event loop group of the preferred transport. */
    public static EventLoopGroup group(int threads) {
        return new MultiThreadIoEventLoopGroup(threads, epoll() ? EpollIoHandler.newFactory() : NioIoHandler.newFactory());
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
