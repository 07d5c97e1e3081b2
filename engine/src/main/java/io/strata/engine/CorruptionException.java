package io.strata.engine;

/**
 * Stored bytes that do not read back as what was written: a bad magic, a bad checksum, a length
 * that runs past its file. Recoverable by skipping the damaged unit (an extent, a transaction, a
 * record); distinct from {@link java.io.IOException}, which is a failure to read at all.
 */
public final class CorruptionException extends Exception {
    private static final long serialVersionUID = 1L;
    private final String file;
    private final long offset;

    public CorruptionException(String file, long offset, String problem) {
        super(file + " @" + offset + ": " + problem);
        this.file = file;
        this.offset = offset;
    }

    public String file() {
        return file;
    }

    public long offset() {
        return offset;
    }

    /** The problem without the file and offset. */
    public String problem() {
        String m = getMessage();
        int i = m.indexOf(": ");
        return i < 0 ? m : m.substring(i + 2);
    }
}
