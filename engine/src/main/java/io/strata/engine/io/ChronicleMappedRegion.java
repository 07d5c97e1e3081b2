package io.strata.engine.io;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import net.openhft.chronicle.bytes.MappedBytesStore;
import net.openhft.chronicle.bytes.MappedFile;
import net.openhft.chronicle.core.io.ReferenceOwner;

/** A read-only mapping of a whole file through Chronicle Bytes' {@link MappedFile}. */
final class ChronicleMappedRegion implements MappedRegion {

    private final ReferenceOwner owner;
    private final MappedFile file;
    private final MappedBytesStore store;
    private final long size;

    private ChronicleMappedRegion(ReferenceOwner owner, MappedFile file, MappedBytesStore store, long size) {
        this.owner = owner;
        this.file = file;
        this.store = store;
        this.size = size;
    }

    static ChronicleMappedRegion map(Path path) throws IOException {
        long size = Files.size(path);
        if (size == 0) {
            throw new IOException(path + ": cannot map an empty file");
        }
        // One chunk covering the whole file: a single mmap, never remapped.
        long chunk = (size + 4095) & ~4095L;
        MappedFile mf = MappedFile.ofSingle(path.toFile(), chunk, true);
        ReferenceOwner owner = ReferenceOwner.temporary("mapped:" + path.getFileName());
        try {
            MappedBytesStore store = mf.acquireByteStore(owner, 0);
            // Readers on many threads use absolute reads only; Chronicle's owner-thread check does not apply.
            store.singleThreadedCheckDisabled(true);
            return new ChronicleMappedRegion(owner, mf, store, size);
        } catch (IOException | RuntimeException e) {
            mf.releaseLast();
            throw e;
        }
    }

    @Override
    public long size() {
        return size;
    }

    private void check(long offset, int len) {
        if (offset < 0 || len < 0 || offset > size - len) {
            throw new IndexOutOfBoundsException("offset " + offset + " length " + len + " outside mapped size " + size);
        }
    }

    @Override
    public int readInt(long offset) {
        check(offset, 4);
        return store.readInt(offset);
    }

    @Override
    public long readLong(long offset) {
        check(offset, 8);
        return store.readLong(offset);
    }

    @Override
    public short readShort(long offset) {
        check(offset, 2);
        return store.readShort(offset);
    }

    @Override
    public byte readByte(long offset) {
        check(offset, 1);
        return store.readByte(offset);
    }

    @Override
    public void read(long offset, byte[] dst, int dstOffset, int length) {
        check(offset, length);
        for (int i = 0; i < length; i++) {
            dst[dstOffset + i] = store.readByte(offset + i);
        }
    }

    @Override
    public void close() {
        store.release(owner);
        file.releaseLast();
    }
}
