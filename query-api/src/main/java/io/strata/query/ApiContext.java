package io.strata.query;

import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.strata.engine.StorageEngine;
import io.strata.query.metrics.ApiMeters;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import io.strata.engine.thread.StrataThreads;
import io.strata.engine.time.Clocks;

/**
 * What the HTTP API serves from: the engine, the node's own host (Netdata's localhost: first in
 * every host list, hops 0), the directory of the dashboard's static files, the clock that defines
 * "now" for relative windows, and the executor that runs queries off the Netty event loop (they
 * may read disk).
 *
 * @param webDirectory the static files, or null to serve none
 * @param executor     runs every request that touches the engine or the disk; a bounded pool,
 *                     since a rejected task is answered 503 rather than queued without limit
 * @param meters       the API's meters, on the registry {@code /metrics} scrapes
 */
public record ApiContext(StorageEngine engine, UUID machineGuid, String hostname, Path webDirectory, Clock clock,
                         ExecutorService executor, ApiMeters meters) implements AutoCloseable {

    /** Where Debian's {@code netdata-web} 1.37.1 puts the dashboard. */
    public static final Path NETDATA_WEB_DIRECTORY = Path.of("/usr/share/netdata/web");

    public ApiContext {
        Objects.requireNonNull(engine, "engine");
        Objects.requireNonNull(machineGuid, "machineGuid");
        Objects.requireNonNull(hostname, "hostname");
        Objects.requireNonNull(clock, "clock");
        Objects.requireNonNull(executor, "executor");
        Objects.requireNonNull(meters, "meters");
    }

    /** A context whose meters are on a registry of their own. */
    public ApiContext(StorageEngine engine, UUID machineGuid, String hostname, Path webDirectory, Clock clock,
                      ExecutorService executor) {
        this(engine, machineGuid, hostname, webDirectory, clock, executor, ApiMeters.standalone());
    }

    /**
     * A context with the system clock and a query pool of {@code min(2, cores)} daemon threads
     * with room for 256 waiting requests. {@link #close()} shuts that pool down.
     */
    public static ApiContext create(StorageEngine engine, UUID machineGuid, String hostname, Path webDirectory) {
        return create(engine, machineGuid, hostname, webDirectory, ApiMeters.standalone().registry());
    }

    /**
     * {@link #create(StorageEngine, UUID, String, Path)} with the API's meters on {@code registry}
     * (the node's, which {@code /metrics} then scrapes whole).
     */
    public static ApiContext create(StorageEngine engine, UUID machineGuid, String hostname, Path webDirectory,
                                    PrometheusMeterRegistry registry) {
        return new ApiContext(engine, machineGuid, hostname, webDirectory, Clocks.system(),
                defaultExecutor(Math.min(2, Runtime.getRuntime().availableProcessors())), new ApiMeters(registry));
    }

    /** {@link #create(StorageEngine, UUID, String, Path)} with the dashboard where Debian installs it, if it does. */
    public static ApiContext create(StorageEngine engine, UUID machineGuid, String hostname) {
        return create(engine, machineGuid, hostname, defaultWebDirectory());
    }

    /** {@link #NETDATA_WEB_DIRECTORY} when it exists, else null. */
    public static Path defaultWebDirectory() {
        return Files.isDirectory(NETDATA_WEB_DIRECTORY) ? NETDATA_WEB_DIRECTORY : null;
    }

    public static ExecutorService defaultExecutor(int threads) {
        AtomicInteger n = new AtomicInteger();
        ThreadPoolExecutor pool = new ThreadPoolExecutor(threads, threads, 30, TimeUnit.SECONDS,
                new ArrayBlockingQueue<>(256), r -> {
                    Thread t = StrataThreads.newThread(r, "strata-api-" + n.incrementAndGet());
                    t.setDaemon(true);
                    return t;
                });
        pool.allowCoreThreadTimeOut(true);
        return pool;
    }

    /** The current unix time in seconds, from {@link #clock()}. */
    public long nowSeconds() {
        return clock.instant().getEpochSecond();
    }

    /** Stops the executor; requests still queued are not run. */
    @Override
    public void close() {
        executor.shutdown();
    }
}
