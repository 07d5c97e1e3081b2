package io.strata.node.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

import io.strata.node.config.NodeConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The threads that gzip HTTP answers come from StrataThreads, as every other Strata thread: named
 * {@code strata-http-gzip-N} (not Netty's {@code strata-http-gzip-POOL-N}), daemon threads.
 */
class GzipThreadsTest {

    @Test
    @Timeout(value = 2, unit = TimeUnit.MINUTES)
    void aGzippedAnswerIsCompressedOnANamedDaemonStrataThread(@TempDir Path tmp) throws Exception {
        Files.writeString(tmp.resolve("netdata.conf"), "[global]\n\thostname = gzip-node\n"
                + "[db]\n\tmode = dbengine\n\tstorage tiers = 1\n[web]\n\tbind to = 127.0.0.1:0\n"
                + "[directories]\n\tcache = " + tmp.resolve("cache") + "\n\tlib = " + tmp.resolve("lib") + "\n");
        try (StrataNode node = NodeRoles.start(NodeConfig.load(tmp), null);
             Socket s = new Socket()) {
            InetSocketAddress port = node.listening().get(0);
            s.connect(port, 10_000);
            s.setSoTimeout(10_000);
            OutputStream out = s.getOutputStream();
            out.write(("GET /api/v1/info HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept-Encoding: gzip\r\n\r\n")
                    .getBytes(StandardCharsets.US_ASCII));
            out.flush();
            InputStream in = s.getInputStream();
            String head = readHead(in);
            assertTrue(head.startsWith("HTTP/1.1 200"), head);
            assertTrue(head.toLowerCase(Locale.ROOT).contains("content-encoding: gzip"), head);

            List<Thread> gzip = Thread.getAllStackTraces().keySet().stream()
                    .filter(t -> t.getName().startsWith("strata-http-gzip")).toList();
            assertFalse(gzip.isEmpty(), "the answer was compressed on a gzip thread");
            for (Thread t : gzip) {
                assertTrue(t.getName().matches("strata-http-gzip-[0-9]+"), t.getName());
                assertTrue(t.isDaemon(), t.getName() + " keeps the JVM alive");
                assertEquals(Thread.class, t.getClass(), t.getName() + " is not made by StrataThreads");
            }
        }
    }

    private static String readHead(InputStream in) throws Exception {
        StringBuilder sb = new StringBuilder();
        while (sb.indexOf("\r\n\r\n") < 0) {
            int b = in.read();
            if (b < 0) {
                break;
            }
            sb.append((char) b);
        }
        return sb.toString();
    }
}
