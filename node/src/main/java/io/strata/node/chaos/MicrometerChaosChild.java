package io.strata.node.chaos;

import io.micrometer.core.instrument.Clock;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Timer;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.strata.engine.thread.StrataThreads;
import io.strata.micrometer.EmbeddedChild;
import io.strata.micrometer.StrataMeterRegistry;
import io.strata.node.runtime.CollectionClock;
import io.strata.query.ApiContext;
import io.strata.query.ApiHttpHandlers;

import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.SplittableRandom;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The chaos cluster's JVM application: a process that is a Strata child only through the
 * {@code strata-micrometer} artifact ({@link EmbeddedChild} and {@link StrataMeterRegistry}). It
 * registers a counter, a gauge and a timer, changes them ten times a second, and streams them to
 * the parents of {@code DIR/stream.conf} in that file's order. Its own engine (under {@code DIR})
 * is what the chaos check compares the parents with; a small query API over that engine
 * ({@code /api/v1/charts}, {@code /api/v1/data}, ...) on {@code ADDRESS:PORT} lets the runner read
 * it as it reads a node's.
 * <pre>
 * java -cp strata-node.jar io.strata.node.chaos.MicrometerChaosChild DIR HOSTNAME ADDRESS PORT
 * </pre>
 * The meters' clock is {@link CollectionClock}'s, so the chaos run's clock shift applies to it as to
 * a node's collectors. SIGTERM closes the registry, the stream and the engine (its pages on disk);
 * SIGKILL loses what was in memory, as for any child.
 */
public final class MicrometerChaosChild {

    /** The chart ids' type (the application's name). */
    static final String TYPE = "shop";

    private MicrometerChaosChild() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length != 4) {
            throw new IllegalArgumentException("usage: MicrometerChaosChild DIR HOSTNAME ADDRESS PORT");
        }
        Path dir = Path.of(args[0]);
        String hostname = args[1];
        InetSocketAddress bind = new InetSocketAddress(args[2], Integer.parseInt(args[3]));
        String streamConf = Files.readString(dir.resolve("stream.conf"), StandardCharsets.UTF_8);
        Clock clock = new Clock() {
            @Override
            public long wallTime() {
                return CollectionClock.nowMicros() / 1000L;
            }

            @Override
            public long monotonicTime() {
                return System.nanoTime();
            }
        };
        CountDownLatch stop = new CountDownLatch(1);
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(StrataThreads.newThread(() -> {
            stop.countDown();
            try {
                stopped.await(30, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }, "micrometer-child-stop"));
        EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, new DefaultThreadFactory("micrometer-child-http",
                true), NioIoHandler.newFactory());
        try (EmbeddedChild child = EmbeddedChild.open(dir, hostname, 1, streamConf);
             StrataMeterRegistry registry = new StrataMeterRegistry(child, TYPE, clock);
             ApiContext api = ApiContext.create(child.engine(), child.machineGuid(), hostname, null)) {
            Counter orders = Counter.builder("orders.placed").description("Orders placed").tag("region", "eu")
                    .register(registry);
            AtomicLong queue = new AtomicLong();
            Gauge.builder("queue.size", queue, AtomicLong::get).description("Jobs waiting").register(registry);
            Timer requests = Timer.builder("http.requests").description("Request time").register(registry);
            // the charts exist before the first connection, which sends their definitions
            registry.defineNow();
            Channel server = new ServerBootstrap().group(group).channel(NioServerSocketChannel.class)
                    .childHandler(new ChannelInitializer<SocketChannel>() {
                        @Override
                        protected void initChannel(SocketChannel ch) {
                            ApiHttpHandlers.install(ch.pipeline(), api);
                        }
                    }).bind(bind).sync().channel();
            try {
                child.connect();
                registry.startPublishing();
                SplittableRandom rnd = new SplittableRandom(hostname.hashCode() ^ System.nanoTime());
                while (!stop.await(100, TimeUnit.MILLISECONDS)) {
                    orders.increment(rnd.nextInt(4));
                    queue.set(rnd.nextInt(500));
                    requests.record(1 + rnd.nextInt(250), TimeUnit.MILLISECONDS);
                }
            } finally {
                server.close().awaitUninterruptibly(10, TimeUnit.SECONDS);
            }
        } finally {
            group.shutdownGracefully(0, 2, TimeUnit.SECONDS).awaitUninterruptibly(10, TimeUnit.SECONDS);
            stopped.countDown();
        }
    }
}
