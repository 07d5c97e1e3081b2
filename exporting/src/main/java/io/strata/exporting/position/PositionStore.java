package io.strata.exporting.position;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.UUID;
import java.util.Set;
import java.util.HashSet;

/**
 * A target's export positions: per host (machine GUID), the last second the target acknowledged. Kept in
 * one small text file, {@code <dir>/<target>.positions} (format: {@code docs/format/exporting-positions.md}),
 * replaced whole after every acknowledged request: written to {@code <target>.positions.tmp}, forced to
 * disk, then renamed over the old file, so that a kill at any moment leaves either the old or the new
 * positions, never a mix or a torn line. One thread at a time (the target's exporter).
 */
public final class PositionStore {

    static final String HEADER = "# strata exporting positions v1: machine-guid last-acknowledged-second [released]";

    private final Path file;
    private final Path tmp;
    private final Map<UUID, Long> positions = new LinkedHashMap<>();
    /** Hosts this node stopped exporting (another parent took them over): their position is history. */
    private final Set<UUID> released = new HashSet<>();
    private long saves;

    private PositionStore(Path file) {
        this.file = file;
        this.tmp = file.resolveSibling(file.getFileName() + ".tmp");
    }

    /**
     * Opens the positions of {@code target} in {@code dir} (created when missing). A line that does not
     * parse stops the open with its file and line: guessing a position would send a gap or duplicates.
     */
    public static PositionStore open(Path dir, String target) throws IOException {
        Files.createDirectories(dir);
        PositionStore s = new PositionStore(dir.resolve(target + ".positions"));
        Files.deleteIfExists(s.tmp);
        if (Files.exists(s.file)) {
            int n = 0;
            for (String line : Files.readAllLines(s.file, StandardCharsets.UTF_8)) {
                n++;
                String t = line.strip();
                if (t.isEmpty() || t.startsWith("#")) {
                    continue;
                }
                String[] parts = t.split("\\s+");
                try {
                    if (parts.length != 2 && !(parts.length == 3 && parts[2].equals("released"))) {
                        throw new IllegalArgumentException("expected 2 fields and 'released'");
                    }
                    long second = Long.parseLong(parts[1]);
                    if (second < 0) {
                        throw new IllegalArgumentException("negative second");
                    }
                    UUID host = UUID.fromString(parts[0]);
                    s.positions.put(host, second);
                    if (parts.length == 3) {
                        s.released.add(host);
                    }
                } catch (IllegalArgumentException e) {
                    throw new IOException(s.file + ":" + n + ": not 'machine-guid second [released]': " + t);
                }
            }
        }
        return s;
    }

    /** The last second acknowledged for {@code host}, or -1 when none was. */
    public long position(UUID host) {
        Long p = positions.get(host);
        return p == null ? -1 : p;
    }

    /** True when this node released {@code host} to another parent (or never exported it). */
    public boolean released(UUID host) {
        return !positions.containsKey(host) || released.contains(host);
    }

    /**
     * Sets {@code host}'s position (held: this node exports it) and writes every position durably
     * before returning.
     */
    public void commit(UUID host, long second) throws IOException {
        positions.put(host, second);
        released.remove(host);
        save();
    }

    /** Marks {@code host} released at {@code second}: another parent exports it from there on. */
    public void release(UUID host, long second) throws IOException {
        positions.put(host, second);
        released.add(host);
        save();
    }

    public Map<UUID, Long> snapshot() {
        return Collections.unmodifiableMap(new LinkedHashMap<>(positions));
    }

    public Path file() {
        return file;
    }

    /** Durable writes so far. */
    public long saves() {
        return saves;
    }

    private void save() throws IOException {
        StringBuilder b = new StringBuilder(HEADER).append('\n');
        for (Map.Entry<UUID, Long> e : positions.entrySet()) {
            b.append(e.getKey()).append(' ').append(e.getValue())
                    .append(released.contains(e.getKey()) ? " released\n" : "\n");
        }
        ByteBuffer bytes = ByteBuffer.wrap(b.toString().getBytes(StandardCharsets.UTF_8));
        try (FileChannel ch = FileChannel.open(tmp, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                StandardOpenOption.TRUNCATE_EXISTING)) {
            while (bytes.hasRemaining()) {
                ch.write(bytes);
            }
            ch.force(true);
        }
        Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        saves++;
    }
}
