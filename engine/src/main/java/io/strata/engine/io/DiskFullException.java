package io.strata.engine.io;

import java.io.IOException;
import java.nio.file.Path;

/**
 * A write refused because the file system has no space left (ENOSPC) or the user's quota is used
 * up (EDQUOT). Its message names the directory, since the operating system's own text does not,
 * and the operator's remedy is to free space there: the engine keeps the pages in memory (within
 * the main cache's bound) and writes them when a retry succeeds.
 */
public final class DiskFullException extends IOException {

    private final Path directory;

    public DiskFullException(Path directory, IOException cause) {
        super("disk full: cannot write to " + directory + " (" + cause.getMessage() + ")", cause);
        this.directory = directory;
    }

    /** The directory that could not be written. */
    public Path directory() {
        return directory;
    }

    /**
     * Whether {@code e} or one of its causes is a full disk or quota. The JDK reports ENOSPC and
     * EDQUOT only through the operating system's message (strerror), so the text is what tells.
     */
    public static boolean isDiskFull(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof DiskFullException) {
                return true;
            }
            String m = t.getMessage();
            if (m != null && (m.contains("No space left on device") || m.contains("Disk quota exceeded"))) {
                return true;
            }
        }
        return false;
    }

    /** {@code e} as a {@link DiskFullException} naming {@code directory} when the disk is full; else {@code e}. */
    public static IOException naming(Path directory, IOException e) {
        if (e instanceof DiskFullException || !isDiskFull(e)) {
            return e;
        }
        return new DiskFullException(directory, e);
    }
}
