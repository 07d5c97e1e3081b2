package io.strata.node.runtime;

import io.micrometer.core.instrument.Clock;
import io.micrometer.core.instrument.Gauge;
import io.strata.micrometer.EmbeddedChild;
import io.strata.micrometer.StrataMeterRegistry;

import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicInteger;

/** An application streaming one gauge through an embedded child; closing it ends the stream. */
final class GaugeApp implements AutoCloseable {
    final EmbeddedChild child;
    final StrataMeterRegistry registry;

    private GaugeApp(EmbeddedChild child, StrataMeterRegistry registry) {
        this.child = child;
        this.registry = registry;
    }

    /** A child named {@code name} in {@code dir/name}, connected with {@code streamConf}, publishing. */
    static GaugeApp open(Path dir, String name, String streamConf) throws Exception {
        EmbeddedChild child = EmbeddedChild.open(dir.resolve(name), name, 1, streamConf);
        StrataMeterRegistry registry = null;
        try {
            registry = new StrataMeterRegistry(child, "app", Clock.SYSTEM);
            AtomicInteger queue = new AtomicInteger(42);
            Gauge.builder("queue.size", queue, AtomicInteger::get).register(registry);
            registry.defineNow();
            child.connect();
            registry.startPublishing();
            return new GaugeApp(child, registry);
        } catch (Exception | Error e) {
            if (registry != null) {
                registry.close();
            }
            child.close();
            throw e;
        }
    }

    @Override
    public void close() throws Exception {
        try {
            registry.close();
        } finally {
            child.close();
        }
    }
}
