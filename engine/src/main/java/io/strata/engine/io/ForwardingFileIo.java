package io.strata.engine.io;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;

/**
 * A {@link FileIo} that passes every call to another; subclasses override only the calls they
 * change (refuse, record, fail on purpose).
 */
public abstract class ForwardingFileIo implements FileIo {

    protected final FileIo delegate;

    protected ForwardingFileIo(FileIo delegate) {
        this.delegate = delegate;
    }

    @Override
    public FileHandle open(Path path, OpenMode mode) throws IOException {
        return delegate.open(path, mode);
    }

    @Override
    public MappedRegion mapReadOnly(Path path) throws IOException {
        return delegate.mapReadOnly(path);
    }

    @Override
    public void rename(Path from, Path to) throws IOException {
        delegate.rename(from, to);
    }

    @Override
    public boolean delete(Path path) throws IOException {
        return delegate.delete(path);
    }

    @Override
    public boolean exists(Path path) {
        return delegate.exists(path);
    }

    @Override
    public long size(Path path) throws IOException {
        return delegate.size(path);
    }

    @Override
    public List<Path> list(Path dir) throws IOException {
        return delegate.list(dir);
    }

    @Override
    public void createDirectories(Path dir) throws IOException {
        delegate.createDirectories(dir);
    }

    @Override
    public void syncDirectory(Path dir) throws IOException {
        delegate.syncDirectory(dir);
    }
}
