package io.strata.engine.io;

import java.io.IOException;
import java.nio.file.Path;

/** Fewer bytes reached the file than were written; the file may now end in a partial record. */
public final class ShortWriteException extends IOException {
    private static final long serialVersionUID = 1L;
    private final long written;

    public ShortWriteException(Path path, long position, int wanted, long written) {
        super(path + ": short write at offset " + position + ": " + written + " of " + wanted + " bytes reached the file");
        this.written = written;
    }

    /** Bytes that did reach the file. */
    public long written() {
        return written;
    }
}
