package io.strata.node.config;

import io.strata.streaming.config.IniException;
import io.strata.streaming.config.IniFile;
import io.strata.testsupport.Fuzz;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Seeded fuzzing of a node's configuration: realistic {@code netdata.conf} and {@code stream.conf}
 * texts, mutated line by line and character by character (keys, values, sections, separators,
 * control characters, NUL, numbers out of range), read as {@link NodeConfig#load} reads them.
 * Invariant: a {@link NodeConfig}, or a {@link NodeConfig.ConfigException} whose message starts with
 * the file and the line of the value it refuses ({@code .../netdata.conf:12: ...}); never another
 * exception.
 *
 * <p>{@code bind to} values are generated from address literals only (with the syntax around them
 * mutated), and {@code [global] hostname} is left alone: a host name in {@code bind to} is resolved,
 * a missing hostname is the machine's, and the test must not ask a name server.
 */
class NodeConfigFuzzTest {

    static final long SEED = 0xC0_4F16L;
    static final Pattern LOCATED = Pattern.compile("^.*/(netdata|stream|exporting)\\.conf:[0-9]+: .*", Pattern.DOTALL);

    @TempDir
    static Path dir;

    static final String[] NETDATA = {
        "[global]", "    hostname = fuzz-parent", "    update every = 1", "[db]", "    mode = dbengine",
        "    storage tiers = 3", "    dbengine multihost disk space MB = 256",
        "    dbengine tier 1 multihost disk space MB = 128", "    dbengine tier 1 update every iterations = 60",
        "    dbengine tier 2 update every iterations = 60", "    dbengine page cache size MB = 32",
        "    dbengine tier 0 retention time = 14d", "    dbengine tier 1 directory = /var/cache/strata/t1",
        "    dbengine fsync = per datafile", "    dbengine use direct io = no", "    dbengine max future time = 10m",
        "    enable replication = yes", "    seconds to replicate = 86400", "    seconds per replication step = 600",
        "[directories]", "    cache = /var/cache/strata", "    lib = /var/lib/strata", "[logs]", "    level = info",
        "    error = stderr", "    access = none", "[plugins]", "    proc = no", "[strata]", "    synthetic charts = 0",
        "    synthetic dimensions per chart = 10", "[web]", "BIND",
        "    accept a streaming request every seconds = 0", "    timeout for first request = 10",
        "    disconnect idle clients after seconds = 60", "    web server max sockets = 4096",
        "    max connections per client address = 64", "    max handshakes in progress = 256",
        "    max handshakes in progress per client address = 8", "    allow connections by dns = heuristic",
        "    allow connections from = localhost 127.* 10.*", "    allow dashboard from = *",
        "    allow streaming from = 127.* !10.0.0.66 *", "    allow netdata.conf from = localhost",
        "    allow management from = localhost", "    enable gzip compression = yes", "    query timeout ms = 10000",
        "    max points read per query = 50000000", "[registry]", "    allow from = *",
    };

    static final String[] STREAM = {
        "[stream]", "    enabled = no", "    destination = 127.0.0.1:19999 127.0.0.2:SSL",
        "    api key = 11111111-2222-3333-4444-555555555555", "    timeout seconds = 60",
        "    default port = 19999", "    send charts matching = *", "    buffer size bytes = 10485760",
        "    reconnect delay seconds = 5", "    initial clock resync iterations = 60", "    enable compression = yes",
        "    CAfile = ", "    CApath = ", "    ssl skip certificate verification = no",
        "[11111111-2222-3333-4444-555555555555]", "    type = api", "    enabled = yes",
        "    allow from = 127.* 10.*", "    default history = 3600", "    default memory mode = dbengine",
        "    health enabled by default = auto", "    default postpone alarms on connect seconds = 60",
        "    multiple connections = allow", "    enable compression = yes",
        "[5B8185C0-E5A4-11F1-9D33-02FC00000001]", "    type = machine", "    enabled = yes",
        "    update every = 2", "    host tags = a=b", "    allow from = *",
    };

    /** Address literals only: {@code bind to} resolves names, and this test must not ask a name server. */
    private static final String[] BIND_HOSTS = {"127.0.0.1", "*", "", "localhost", "[::1]", "::1", "[", "[]",
        "0.0.0.0", "[::]", "127.0.0.2", "unix:/run/x", "udp:127.0.0.1", "tcp:127.0.0.1", "[::1"};
    private static final String[] BIND_SUFFIXES = {"", ":19999", ":0", ":65536", ":-1", ":", ":http", "=dashboard",
        "=streaming|netdata.conf", "=bogus", "=", "^SSL=optional", "^SSL=force", "^SSL=maybe", "^", "]", ":1]"};
    private static final String CHARS = "[]=#;:,|*!^ \t\u000b\f\r\u0000\u0085\u00a0\u2028\uFEFFaZ09-._/\\\"'%$é";
    private static final String[] VALUES = {"", "0", "-1", "1", "2", "255", "256", "86400", "86401",
        "9223372036854775807", "9223372036854775808", "-9223372036854775808", "1e3", "0x10", " 7 ", "yes", "no",
        "auto", "on", "off", "true", "heuristic", "10m", "3mo", "1y", "14dd", "99999999999999999999d", "5x",
        "per extent", "never", "bogus", "ram", "dbengine", "none", "debug", "syslog", "system", "/dev/null",
        "/tmp/x\u0000y", "a\u0000b", "*", "!*", "!", "10.*", "localhost", "host.example", "\\", "/", ".", "..",
        "[x]", "=", "#", "11111111-2222-3333-4444-555555555555"};

    @Test
    void configsLoadOrNameTheirFileAndLine() throws Exception {
        Path netdataConf = dir.resolve("netdata.conf");
        Path streamConf = dir.resolve("stream.conf");
        long[] loaded = {0};
        Fuzz.Result run = Fuzz.run("netdata.conf and stream.conf", SEED, in -> {
            Random r = in.random();
            String nd = text(r, NETDATA, bindTo(r));
            String st = text(r, STREAM, null);
            in.show(new Object() {
                @Override
                public String toString() {
                    return "--- netdata.conf:\n" + nd + "\n--- stream.conf:\n" + st;
                }
            });
            IniFile ndIni;
            IniFile stIni;
            try {
                ndIni = IniFile.parse(nd, netdataConf.toString());
                stIni = IniFile.parse(st, streamConf.toString());
            } catch (IniException e) {
                assertTrue(LOCATED.matcher(e.getMessage()).matches(), "not located: " + e.getMessage());
                return;
            }
            try {
                NodeConfig config = NodeConfig.from(dir, ndIni, stIni);
                assertNotNull(config.web());
                assertNotNull(config.stream());
                loaded[0]++;
            } catch (NodeConfig.ConfigException e) {
                assertTrue(LOCATED.matcher(e.getMessage()).matches(), "not located: " + e.getMessage());
            }
        });
        assertTrue(loaded[0] > run.inputs() / 20, "the fuzzer should reach valid configurations too, got " + loaded[0]);
    }

    /** A {@code bind to} line: one to three literal addresses with suffixes, separators and edits. */
    static String bindTo(Random r) {
        StringBuilder sb = new StringBuilder("    bind to = ");
        int n = r.nextInt(8) == 0 ? 0 : 1 + r.nextInt(3);
        for (int i = 0; i < n; i++) {
            if (i > 0) {
                sb.append(r.nextBoolean() ? " " : ",");
            }
            sb.append(BIND_HOSTS[r.nextInt(BIND_HOSTS.length)]);
            int suffixes = r.nextInt(3);
            for (int s = 0; s < suffixes; s++) {
                sb.append(BIND_SUFFIXES[r.nextInt(BIND_SUFFIXES.length)]);
            }
        }
        return sb.toString();
    }

    /**
     * The sample's lines with edits: lines dropped, doubled or moved, values replaced, characters
     * inserted, changed or deleted. The {@code BIND} line is replaced by {@code bind} (or dropped) and
     * never edited character by character, so it stays made of literals.
     */
    static String text(Random r, String[] sample, String bind) {
        List<String> lines = new ArrayList<>(List.of(sample));
        int edits = r.nextInt(8);
        for (int e = 0; e < edits && !lines.isEmpty(); e++) {
            int at = r.nextInt(lines.size());
            if (lines.get(at).equals("BIND")) {
                if (r.nextInt(4) == 0) {
                    lines.remove(at);
                }
                continue;
            }
            if (lines.get(at).startsWith("[global]") || lines.get(at).contains("hostname = fuzz-parent")) {
                // without a hostname the node asks for the machine's name, which may ask a name server
                continue;
            }
            String line = lines.get(at);
            switch (r.nextInt(7)) {
                case 0 -> lines.remove(at);
                case 1 -> lines.add(r.nextInt(lines.size() + 1), line);
                case 2 -> {
                    int eq = line.indexOf('=');
                    if (eq >= 0) {
                        lines.set(at, line.substring(0, eq + 1) + " " + VALUES[r.nextInt(VALUES.length)]);
                    }
                }
                case 3 -> {
                    StringBuilder sb = new StringBuilder(line);
                    sb.insert(r.nextInt(sb.length() + 1), CHARS.charAt(r.nextInt(CHARS.length())));
                    lines.set(at, sb.toString());
                }
                case 4 -> {
                    if (!line.isEmpty()) {
                        StringBuilder sb = new StringBuilder(line);
                        sb.setCharAt(r.nextInt(sb.length()), CHARS.charAt(r.nextInt(CHARS.length())));
                        lines.set(at, sb.toString());
                    }
                }
                case 5 -> {
                    if (!line.isEmpty()) {
                        int from = r.nextInt(line.length());
                        lines.set(at, line.substring(0, from) + line.substring(Math.min(line.length(),
                                from + 1 + r.nextInt(6))));
                    }
                }
                default -> {
                    int eq = line.indexOf('=');
                    if (eq >= 0) {
                        lines.set(at, line.substring(0, eq + 1) + " " + VALUES[r.nextInt(VALUES.length)]
                                + VALUES[r.nextInt(VALUES.length)]);
                    }
                }
            }
        }
        StringBuilder out = new StringBuilder();
        for (String line : lines) {
            out.append(line.equals("BIND") ? (bind == null ? "" : bind) : line)
                    .append(r.nextInt(30) == 0 ? "\r\n" : "\n");
        }
        return out.toString();
    }
}
