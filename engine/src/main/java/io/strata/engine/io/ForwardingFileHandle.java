package io.strata.engine.io;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;

/** A {@link FileHandle} that passes every call to another; subclasses override what they change. */
public abstract class ForwardingFileHandle implements FileHandle {

    protected final FileHandle delegate;

    protected ForwardingFileHandle(FileHandle delegate) {
        this.delegate = delegate;
    }

    @Override
    public Path path() {
        return delegate.path();
    }

    @Override
    public int write(ByteBuffer src, long position) throws IOException {
        return delegate.write(src, position);
    }

    @Override
    public int read(ByteBuffer dst, long position) throws IOException {
        return delegate.read(dst, position);
    }

    @Override
    public void sync() throws IOException {
        delegate.sync();
    }

    @Override
    public long size() throws IOException {
        return delegate.size();
    }

    @Override
    public void truncate(long size) throws IOException {
        delegate.truncate(size);
    }

    @Override
    public void close() throws IOException {
        delegate.close();
    }
}
