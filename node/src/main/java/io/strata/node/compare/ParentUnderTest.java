package io.strata.node.compare;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;

/** A parent process the comparison starts, loads, measures and stops. */
interface ParentUnderTest extends AutoCloseable {

    /** "strata" or "netdata": the key of its part of the result. */
    String name();

    /** Writes its configuration under its scratch directory and starts it; returns once its API answers. */
    void start() throws IOException, InterruptedException;

    /** The process whose CPU, memory and threads are measured. */
    long pid();

    int port();

    /** Where its tier-0 files are. */
    Path tier0Dir();

    /** What the process logged, for an error message. */
    String logTail();

    /** SIGTERM (a clean shutdown writes what is in memory to disk), SIGKILL when it does not stop in time. */
    @Override
    void close() throws InterruptedException;

    /** Bytes of every regular file under {@code dir}. */
    static long bytesUnder(Path dir) throws IOException {
        if (!Files.isDirectory(dir)) {
            return 0;
        }
        try (Stream<Path> s = Files.walk(dir)) {
            return s.filter(Files::isRegularFile).mapToLong(p -> {
                try {
                    return Files.size(p);
                } catch (IOException gone) {
                    return 0;
                }
            }).sum();
        }
    }

    static String tail(Path file, int chars) {
        try {
            if (!Files.exists(file)) {
                return "";
            }
            String s = Files.readString(file);
            return s.length() > chars ? s.substring(s.length() - chars) : s;
        } catch (IOException e) {
            return "";
        }
    }

    /** stream.conf of a parent accepting the load's API key: the same file for both. */
    static String streamConf(boolean compression) {
        return "[stream]\n"
                + "\tenabled = no\n\n"
                + "[" + CompareSettings.API_KEY + "]\n"
                + "\tenabled = yes\n"
                + "\tallow from = *\n"
                + "\tdefault memory mode = dbengine\n"
                + "\thealth enabled by default = no\n"
                + "\tenable compression = " + (compression ? "yes" : "no") + "\n"
                + "\tenable replication = yes\n"
                + "\tseconds to replicate = 86400\n"
                + "\tseconds per replication step = 600\n";
    }

    /** The [db] section both parents get: dbengine, 3 tiers, the same quotas and page cache. */
    static String dbSection() {
        return "[db]\n"
                + "\tmode = dbengine\n"
                + "\tupdate every = 1\n"
                + "\tstorage tiers = " + CompareSettings.TIERS + "\n"
                + "\tdbengine page cache size MB = " + CompareSettings.PAGE_CACHE_MB + "\n"
                + "\tdbengine multihost disk space MB = " + CompareSettings.QUOTA_MB[0] + "\n"
                + "\tdbengine tier 1 multihost disk space MB = " + CompareSettings.QUOTA_MB[1] + "\n"
                + "\tdbengine tier 2 multihost disk space MB = " + CompareSettings.QUOTA_MB[2] + "\n";
    }

    /** Waits (bounded) until {@code /api/v1/info} answers, failing early when the process is gone. */
    static void awaitApi(ParentHttp http, Process process, String name, int seconds, ParentUnderTest p)
            throws IOException, InterruptedException {
        long deadline = System.nanoTime() + seconds * 1_000_000_000L;
        IOException last = null;
        while (System.nanoTime() < deadline) {
            if (!process.isAlive()) {
                throw new IOException(name + " exited with " + process.exitValue() + ": " + p.logTail());
            }
            try {
                http.text("/api/v1/info");
                return;
            } catch (IOException notYet) {
                last = notYet;
                Thread.sleep(200);
            }
        }
        throw new IOException(name + " did not answer on 127.0.0.1:" + p.port() + " within " + seconds + " s ("
                + (last == null ? "" : last.getMessage()) + "): " + p.logTail());
    }
}
