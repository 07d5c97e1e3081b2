package io.strata.node.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code strata node} as a user runs it, in its own JVM, when it cannot start: exit code 1 and one
 * ERROR line that says what and where, without a stack trace. Tests run as root in CI, where
 * permissions stop nothing: the unwritable directory is one below a regular file.
 */
class NodeCommandStartFailureTest {

    @TempDir
    Path tmp;

    @Test
    void anUnwritableCacheDirectoryIsOneErrorLineNamingItAndItsKey() throws Exception {
        Path file = Files.writeString(tmp.resolve("a-file"), "not a directory");
        Path cache = file.resolve("sub");
        Path conf = writeConfig(tmp.resolve("conf"), cache, "127.0.0.1:0");
        String line = failedStart(conf);
        assertTrue(line.contains("directory " + cache + " ([directories] cache in " + conf.resolve("netdata.conf")
                + ") is not writable"), line);
    }

    @Test
    void aPortInUseIsOneErrorLineNamingIt() throws Exception {
        try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            int port = taken.getLocalPort();
            Path conf = writeConfig(tmp.resolve("conf"), tmp.resolve("cache"), "127.0.0.1:" + port);
            String line = failedStart(conf);
            assertTrue(line.contains("cannot listen on 127.0.0.1:" + port + ": the port is in use"), line);
        }
    }

    /** Runs the command, checks exit code 1, one ERROR line and no stack trace; returns the line. */
    private String failedStart(Path conf) throws Exception {
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        for (String a : ManagementFactory.getRuntimeMXBean().getInputArguments()) {
            if (a.startsWith("--add-") || a.startsWith("--enable-native-access") || a.startsWith("-Dchronicle.")) {
                cmd.add(a);
            }
        }
        cmd.addAll(List.of("-Xmx128m", "-XX:TieredStopAtLevel=1", "-cp", System.getProperty("java.class.path"),
                "io.strata.node.cli.StrataMain", "node", "--config", conf.toString()));
        Path out = tmp.resolve("out.txt");
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(out.toFile()).start();
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), "strata node did not exit");
        String printed = Files.readString(out, StandardCharsets.UTF_8);
        assertEquals(1, p.exitValue(), printed);
        List<String> errors = printed.lines().filter(l -> l.contains(" ERROR ")).toList();
        assertEquals(1, errors.size(), printed);
        assertFalse(printed.contains("\tat ") || printed.contains("Exception"), "a stack trace or class name: " + printed);
        System.out.println("[NodeCommandStartFailureTest] exit " + p.exitValue() + ": " + errors.get(0));
        return errors.get(0);
    }

    private static Path writeConfig(Path dir, Path cache, String bind) throws Exception {
        Files.createDirectories(dir);
        Files.writeString(dir.resolve("netdata.conf"), "[global]\n\thostname = start-failure\n"
                + "[db]\n\tmode = dbengine\n\tstorage tiers = 1\n"
                + "[web]\n\tbind to = " + bind + "\n"
                + "[directories]\n\tcache = " + cache + "\n\tlib = " + dir.resolve("lib") + "\n");
        return dir;
    }
}
