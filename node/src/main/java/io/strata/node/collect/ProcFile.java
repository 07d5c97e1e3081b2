package io.strata.node.collect;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.Closeable;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Path;
import java.util.Arrays;

/**
 * One kernel file read again on every pass into the same byte buffer. The file stays open and is
 * read from offset 0 each time (procfs and sysfs regenerate their text on such a read), so a
 * pass allocates nothing. A file that cannot be read is reported once with a WARN and tried again
 * on the next pass; when it comes back, that is reported once too.
 */
public final class ProcFile implements Closeable {

    private static final Logger LOG = LoggerFactory.getLogger(ProcFile.class);

    private final Path path;
    private RandomAccessFile file;
    private byte[] buf;
    private int length;
    private boolean warned;

    public ProcFile(Path path) {
        this(path, 4096);
    }

    public ProcFile(Path path, int initialCapacity) {
        this.path = path;
        this.buf = new byte[Math.max(64, initialCapacity)];
    }

    public Path path() {
        return path;
    }

    /** Reads the whole file; false (after one WARN) when it is missing or unreadable. */
    public boolean read() {
        try {
            if (file == null) {
                file = new RandomAccessFile(path.toFile(), "r");
            }
            file.seek(0);
            int n = 0;
            while (true) {
                if (n == buf.length) {
                    // the file grew (more devices, more CPUs): keep the larger buffer for later passes
                    buf = Arrays.copyOf(buf, buf.length * 2);
                }
                int r = file.read(buf, n, buf.length - n);
                if (r < 0) {
                    break;
                }
                n += r;
            }
            length = n;
            if (warned) {
                warned = false;
                LOG.info("{} is readable again", path);
            }
            return true;
        } catch (IOException e) {
            length = 0;
            closeQuietly();
            if (!warned) {
                warned = true;
                LOG.warn("cannot read {} ({}); its charts are not collected until it can be read", path,
                        e.getMessage());
            }
            return false;
        }
    }

    public byte[] bytes() {
        return buf;
    }

    public int length() {
        return length;
    }

    private void closeQuietly() {
        if (file != null) {
            try {
                file.close();
            } catch (IOException ignored) {
                // nothing useful to do: the next read reopens it
            }
            file = null;
        }
    }

    @Override
    public void close() {
        closeQuietly();
    }
}
