package io.strata.it.micrometer;

import io.micrometer.core.instrument.Clock;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Timer;
import io.strata.micrometer.EmbeddedChild;
import io.strata.micrometer.StrataMeterRegistry;

import java.nio.file.Path;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A JVM application that is a Strata child: its Micrometer meters become charts streamed to a
 * parent (Strata or Netdata 1.37.1).
 * <pre>
 * java -cp &lt;strata-micrometer and its dependencies&gt;:. io.strata.it.micrometer.MicrometerChildExample 127.0.0.1:19999 API_KEY /tmp/app [seconds]
 * </pre>
 * It needs only the {@code strata-micrometer} artifact; {@code MicrometerChildIT} runs it so.
 */
public final class MicrometerChildExample {

    private MicrometerChildExample() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length < 3) {
            System.err.println("usage: MicrometerChildExample <parent host:port> <api key> <data dir> [seconds]");
            System.exit(2);
        }
        int seconds = args.length > 3 ? Integer.parseInt(args[3]) : Integer.MAX_VALUE;
        String streamConf = "[stream]\n\tenabled = yes\n\tdestination = " + args[0] + "\n\tapi key = " + args[1]
                + "\n";
        try (EmbeddedChild child = EmbeddedChild.open(Path.of(args[2]), "micrometer-example", 1, streamConf);
             StrataMeterRegistry registry = new StrataMeterRegistry(child, "example", Clock.SYSTEM)) {
            Counter orders = Counter.builder("orders.placed").description("Orders placed").tag("region", "eu")
                    .register(registry);
            AtomicInteger queue = new AtomicInteger();
            Gauge.builder("queue.size", queue, AtomicInteger::get).description("Jobs waiting").register(registry);
            Timer requests = Timer.builder("http.requests").description("Request time").register(registry);
            // the charts exist before the first connection, which sends their definitions
            registry.defineNow();
            child.connect();
            registry.startPublishing();
            ThreadLocalRandom rnd = ThreadLocalRandom.current();
            for (int s = 0; s < seconds; s++) {
                for (int i = 0; i < 10; i++) {
                    orders.increment(rnd.nextInt(3));
                    queue.set(rnd.nextInt(100));
                    requests.record(() -> sleepQuietly(rnd.nextInt(20)));
                    sleepQuietly(80);
                }
            }
        }
    }

    private static void sleepQuietly(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
