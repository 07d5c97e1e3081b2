package io.strata.node.chaos;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Iterator;
import java.util.List;
import java.util.stream.Stream;
import org.slf4j.LoggerFactory;
import org.slf4j.Logger;

/**
 * The parents' database directories ({@code [directories] cache}) as tmpfs mounts of their own
 * (as root), so that a fault can fill a parent's disk and free it: a file written until the
 * file system refuses, then deleted. Unmounted at the end of the run.
 */
final class ParentDisks implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(ParentDisks.class);

    static final String SIZE = "256m";
    static final String FILLER = "chaos-filler";

    private final List<Path> mounted = new ArrayList<>();
    private final String unavailable;

    private ParentDisks(String unavailable) {
        this.unavailable = unavailable;
    }

    /** Mounts a tmpfs on every parent's cache directory, or says why it cannot. */
    static ParentDisks mount(List<ChaosNode> parents, boolean allowed) {
        if (!allowed) {
            return new ParentDisks("full disks need the namespaces' machine (root); turned off");
        }
        if (!"root".equals(System.getProperty("user.name"))) {
            return new ParentDisks("mounting a tmpfs needs root (running as " + System.getProperty("user.name") + ")");
        }
        ParentDisks d = new ParentDisks(null);
        try {
            for (ChaosNode p : parents) {
                Path cache = p.dir.resolve("cache");
                Files.createDirectories(cache);
                Cmd.run("mount", "-t", "tmpfs", "-o", "size=" + SIZE + ",mode=0755", "strata-chaos-disk",
                        cache.toString());
                d.mounted.add(cache);
            }
        } catch (IOException e) {
            d.close();
            return new ParentDisks("cannot mount a tmpfs: " + e.getMessage());
        }
        return d;
    }

    /** Why disks are not filled, or null. */
    String unavailable() {
        return unavailable;
    }

    /** Writes the parent's disk full; returns the bytes written. */
    long fill(ChaosNode parent) throws IOException {
        Path filler = parent.dir.resolve("cache").resolve(FILLER);
        byte[] chunk = new byte[1 << 20];
        long n = 0;
        // bounded: the tmpfs holds SIZE, so at most that many chunks (and a margin) are written
        try (OutputStream out = Files.newOutputStream(filler)) {
            for (int i = 0; i < 1024; i++) {
                out.write(chunk);
                n += chunk.length;
            }
        } catch (IOException e) {
            if (e.getMessage() == null || !e.getMessage().contains("No space left")) {
                throw e;
            }
            return n;
        }
        throw new IOException(parent.dir.resolve("cache") + " took 1 GiB and is not full: not the run's tmpfs");
    }

    void free(ChaosNode parent) throws IOException {
        Files.deleteIfExists(parent.dir.resolve("cache").resolve(FILLER));
    }

    /** Deletes what a directory holds (a mount point stays). */
    static void empty(Path dir) throws IOException {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> s = Files.walk(dir)) {
            Iterator<Path> it = s.sorted(Comparator.reverseOrder()).iterator();
            while (it.hasNext()) {
                Path p = it.next();
                if (!p.equals(dir)) {
                    Files.deleteIfExists(p);
                }
            }
        }
    }

    /** Unmounts (after the parents stopped). */
    @Override
    public void close() {
        for (Path m : mounted) {
            try {
                Cmd.run("umount", m.toString());
            } catch (IOException e) {
                try {
                    Cmd.run("umount", "-l", m.toString());
                } catch (IOException again) {
                    LOG.warn("{}", again.getMessage());
                }
            }
        }
        mounted.clear();
    }
}
