package io.strata.node.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.strata.node.config.NodeConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

/**
 * A normal stop logs nothing alarming: a node stopped while HTTP clients keep connections open
 * (their answers gzipped on the gzip executors) closes them without a WARN. The gzip executors
 * were stopped before the port's connections, and each connection's teardown then logged Netty's
 * {@code RejectedExecutionException} stack traces at WARN.
 */
class NodeStopsQuietlyTest {

    @Test
    @Timeout(value = 2, unit = TimeUnit.MINUTES)
    void aNodeWithOpenHttpConnectionsStopsWithoutWarnings(@TempDir Path tmp) throws Exception {
        Files.writeString(tmp.resolve("netdata.conf"), "[global]\n\thostname = quiet-node\n"
                + "[db]\n\tmode = dbengine\n\tstorage tiers = 1\n[web]\n\tbind to = 127.0.0.1:0\n"
                + "[directories]\n\tcache = " + tmp.resolve("cache") + "\n\tlib = " + tmp.resolve("lib") + "\n");
        Logger root = (Logger) LoggerFactory.getLogger(Logger.ROOT_LOGGER_NAME);
        ListAppender<ILoggingEvent> logged = new ListAppender<>();
        logged.start();
        StrataNode node = NodeRoles.start(NodeConfig.load(tmp), null);
        List<Socket> clients = new ArrayList<>();
        try {
            InetSocketAddress port = node.listening().get(0);
            for (int i = 0; i < 8; i++) {
                Socket s = new Socket(port.getAddress(), port.getPort());
                s.setSoTimeout(10_000);
                clients.add(s);
                OutputStream out = s.getOutputStream();
                out.write(("GET /api/v1/info HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept-Encoding: gzip\r\n\r\n")
                        .getBytes(StandardCharsets.US_ASCII));
                out.flush();
                InputStream in = s.getInputStream();
                byte[] head = new byte[12];
                int n = in.readNBytes(head, 0, head.length);
                assertEquals("HTTP/1.1 200", new String(head, 0, n, StandardCharsets.US_ASCII));
            }
            root.addAppender(logged);
            node.close();
        } finally {
            root.detachAppender(logged);
            for (Socket s : clients) {
                s.close();
            }
        }
        List<String> alarming = logged.list.stream().filter(e -> e.getLevel().isGreaterOrEqual(Level.WARN))
                .map(e -> e.getLevel() + " " + e.getLoggerName() + ": " + e.getFormattedMessage()).toList();
        assertTrue(alarming.isEmpty(), "a normal stop logged " + alarming);
    }
}
