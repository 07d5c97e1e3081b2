package io.strata.streaming.receiver;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.strata.engine.EngineConfig;
import io.strata.engine.StorageEngine;
import io.strata.streaming.auth.StreamAuthorizer;
import io.strata.streaming.auth.StreamConfig;
import io.strata.streaming.config.IniFile;
import io.strata.streaming.server.StreamServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

/**
 * A bug met on every read of a stream (here: a stream listener that throws each time) is an
 * internal error an operator must see, but as a few lines a minute, not one line (with its stack
 * trace) per read of every child.
 */
class ReceiverInternalErrorLogTest {

    static final String KEY = "11111111-2222-3333-4444-555555555555";
    static final long CAPS_1_37_1 = 16376;

    @TempDir
    Path dir;
    StorageEngine engine;
    StreamServer server;
    int port;
    final AtomicInteger failures = new AtomicInteger();
    Logger handlerLog;
    ListAppender<ILoggingEvent> logged;

    @BeforeEach
    void start() throws Exception {
        handlerLog = (Logger) LoggerFactory.getLogger(StreamReceiverHandler.class);
        logged = new ListAppender<>();
        logged.start();
        handlerLog.addAppender(logged);
        engine = StorageEngine.open(EngineConfig.defaults(dir.resolve("db")));
        StreamConfig conf = StreamConfig.from(IniFile.parse("[" + KEY + "]\n\tenabled = yes\n", "stream.conf"));
        StreamAuthorizer auth = new StreamAuthorizer(conf, true, CAPS_1_37_1, UUID.randomUUID().toString(), 0);
        ReceivedStreamListener failingOnEveryRead = stream -> new ReceivedStreamListener.Observer() {
            @Override
            public void readComplete() {
                failures.incrementAndGet();
                throw new IllegalStateException("a listener bug met on every read");
            }
        };
        ReceiverContext rc = new ReceiverContext(engine, auth, new ReceiverRegistry(), ReceiverLimits.DEFAULTS,
                new ReceiverStats(), ReceiverContext.wallClockMicros(), 600, null).withListener(failingOnEveryRead);
        server = new StreamServer(rc, null, null, 1);
        port = server.bind(new InetSocketAddress("127.0.0.1", 0)).getPort();
    }

    @AfterEach
    void stop() throws Exception {
        handlerLog.detachAppender(logged);
        logged.stop();
        server.close();
        engine.close();
    }

    @Test
    void aListenerFailingOnEveryReadIsLoggedOnceNotOnEveryRead() throws Exception {
        byte[] session = ReceiverVectorsTest.resource("01-plain-child_to_parent.raw.gz");
        int head = ReceiverVectorsTest.headEnd(session);
        try (Socket s = new Socket("127.0.0.1", port)) {
            s.setSoTimeout(10_000);
            s.getOutputStream().write(session, 0, head);
            s.getInputStream().read(new byte[100]);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            // one write at a time, each waited for: every write is at least one read of its own
            for (int i = 0; i < 10 && System.nanoTime() < deadline; i++) {
                int before = failures.get();
                s.getOutputStream().write("\n".getBytes(StandardCharsets.US_ASCII));
                s.getOutputStream().flush();
                while (failures.get() == before && System.nanoTime() < deadline) {
                    Thread.onSpinWait();
                }
            }
        }
        assertTrue(failures.get() >= 5, "the listener failed on " + failures.get() + " reads");
        long errors = logged.list.stream().filter(e -> e.getLevel() == Level.ERROR).count();
        assertTrue(errors <= 1, errors + " ERROR lines for " + failures.get() + " failures of the same bug");
    }
}
