package io.strata.node.runtime;

import io.strata.node.config.NodeConfig;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A directory of the configuration that cannot be written stops the start with one message naming
 * it and its key. Tests run as root in CI, where permissions stop nothing: the directories here
 * cannot be created whoever asks (below a regular file, or in /proc).
 */
class NodeDirectoriesTest {

    @TempDir
    Path tmp;

    @Test
    void aCacheDirectoryBelowARegularFileIsRefusedWithItsKey() throws Exception {
        Path file = Files.writeString(tmp.resolve("a-file"), "not a directory");
        Path cache = file.resolve("cache");
        NodeConfig cfg = NodeConfig.load(writeConfig(tmp.resolve("conf"), cache, tmp.resolve("lib")));
        NodeDirectories.NotWritableException e = assertThrows(NodeDirectories.NotWritableException.class,
                () -> NodeDirectories.requireWritable(cfg));
        assertEquals(cache, e.directory());
        assertEquals("[directories] cache in " + tmp.resolve("conf").resolve("netdata.conf"), e.setBy());
        assertTrue(e.getMessage().startsWith("directory " + cache + " ([directories] cache in "), e.getMessage());
        assertTrue(e.getMessage().contains("cannot be created") && e.getMessage().contains(file.toString()),
                e.getMessage());
    }

    @Test
    void aLibDirectoryInProcIsRefusedWithItsKey() throws Exception {
        Assumptions.assumeTrue(Files.isDirectory(Path.of("/proc/self")), "no /proc on this machine");
        Path lib = Path.of("/proc/strata-node-directories-test/lib");
        NodeConfig cfg = NodeConfig.load(writeConfig(tmp.resolve("conf"), tmp.resolve("cache"), lib));
        NodeDirectories.NotWritableException e = assertThrows(NodeDirectories.NotWritableException.class,
                () -> NodeDirectories.requireWritable(cfg));
        assertEquals(lib, e.directory());
        assertTrue(e.setBy().startsWith("[directories] lib in "), e.setBy());
        // the cache was checked first, and is usable
        assertTrue(Files.isDirectory(tmp.resolve("cache")));
        try (var left = Files.list(tmp.resolve("cache"))) {
            assertEquals(0, left.count(), "the write check leaves no file behind");
        }
    }

    @Test
    void aWritableDirectoryIsCreatedAndPasses() throws Exception {
        Path dir = tmp.resolve("x/y/z");
        NodeDirectories.requireWritable(dir, "test");
        assertTrue(Files.isDirectory(dir));
    }

    static Path writeConfig(Path dir, Path cache, Path lib) throws Exception {
        Files.createDirectories(dir);
        Files.writeString(dir.resolve("netdata.conf"), "[global]\n\thostname = dirs\n"
                + "[db]\n\tmode = dbengine\n\tstorage tiers = 1\n"
                + "[web]\n\tbind to = 127.0.0.1:0\n"
                + "[directories]\n\tcache = " + cache + "\n\tlib = " + lib + "\n");
        return dir;
    }
}
