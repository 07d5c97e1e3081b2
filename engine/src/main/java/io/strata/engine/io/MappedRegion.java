package io.strata.engine.io;

import java.io.Closeable;

/**
 * A read-only memory-mapped file. Reads are absolute and bounds-checked against {@link #size()};
 * safe from any thread while the region is open. The creator owns it and closes it.
 */
public interface MappedRegion extends Closeable {

    long size();

    int readInt(long offset);

    long readLong(long offset);

    short readShort(long offset);

    byte readByte(long offset);

    void read(long offset, byte[] dst, int dstOffset, int length);

    @Override
    void close();
}
