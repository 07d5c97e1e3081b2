package io.strata.node.runtime;

import io.strata.node.config.NodeConfig;

import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * The directories a node writes to, checked before anything else starts: a directory that cannot
 * be created or written stops the start with one message naming the directory and the key of
 * netdata.conf that chose it, instead of a failure deep in the engine. Permissions alone do not
 * decide (root writes through them), so the check creates the directory and writes a file in it.
 */
public final class NodeDirectories {

    private NodeDirectories() {
    }

    /** A directory of the configuration that cannot be used; its message is meant for the user as it is. */
    public static final class NotWritableException extends IOException {
        private final Path directory;
        private final String setBy;

        NotWritableException(Path directory, String setBy, String reason, Throwable cause) {
            super("directory " + directory + " (" + setBy + ") is not writable: " + reason, cause);
            this.directory = directory;
            this.setBy = setBy;
        }

        public Path directory() {
            return directory;
        }

        /** The configuration key that chose the directory, e.g. {@code [directories] cache in .../netdata.conf}. */
        public String setBy() {
            return setBy;
        }
    }

    /** Checks every directory the node will write: {@code [directories] cache} and {@code lib}. */
    public static void requireWritable(NodeConfig cfg) throws NotWritableException {
        Path conf = cfg.dir().resolve("netdata.conf");
        requireWritable(cfg.cacheDir(), "[directories] cache in " + conf);
        requireWritable(cfg.libDir(), "[directories] lib in " + conf);
        Path[] tierDirs = cfg.dbEngine().tierDirectories();
        for (int t = 0; t < tierDirs.length; t++) {
            if (tierDirs[t] != null) {
                requireWritable(tierDirs[t], "[db] dbengine tier " + t + " directory in " + conf);
            }
        }
    }

    /** Creates {@code dir} when missing and writes (then removes) a file in it. */
    public static void requireWritable(Path dir, String setBy) throws NotWritableException {
        try {
            Files.createDirectories(dir);
        } catch (IOException e) {
            throw new NotWritableException(dir, setBy, "it cannot be created (" + reason(e) + ")", e);
        }
        Path probe = dir.resolve(".strata-write-check-" + ProcessHandle.current().pid());
        try {
            Files.write(probe, new byte[]{1}, StandardOpenOption.CREATE, StandardOpenOption.TRUNCATE_EXISTING,
                    StandardOpenOption.WRITE, StandardOpenOption.DSYNC);
        } catch (IOException e) {
            throw new NotWritableException(dir, setBy, "a file cannot be written in it (" + reason(e) + ")", e);
        } finally {
            try {
                Files.deleteIfExists(probe);
            } catch (IOException ignored) {
                // the write failed, or a leftover check file that the next start overwrites
            }
        }
    }

    /** The operating system's word for a failure (e.g. "Not a directory"), without a Java class name. */
    static String reason(IOException e) {
        if (e instanceof FileAlreadyExistsException f) {
            return (f.getFile() != null ? f.getFile() : "a path on the way") + " exists and is not a directory";
        }
        if (e instanceof AccessDeniedException a) {
            return "permission denied" + (a.getFile() != null ? " on " + a.getFile() : "");
        }
        if (e instanceof NoSuchFileException n) {
            return (n.getFile() != null ? n.getFile() : "a path on the way") + " cannot be created there";
        }
        if (e instanceof FileSystemException f && f.getReason() != null) {
            String r = f.getReason();
            if (r.contains("No space left")) {
                r += ": the disk is full";
            }
            return r + (f.getFile() != null ? " on " + f.getFile() : "");
        }
        return e.getMessage() != null ? e.getMessage() : e.getClass().getSimpleName();
    }
}
