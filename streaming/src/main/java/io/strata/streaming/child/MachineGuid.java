package io.strata.streaming.child;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.UUID;

/** A child's machine GUID, kept where Netdata keeps it: {@code <lib>/registry/netdata.public.unique.id}. */
public final class MachineGuid {

    private MachineGuid() {
    }

    public static UUID loadOrCreate(Path libDir) throws IOException {
        Path file = libDir.resolve("registry").resolve("netdata.public.unique.id");
        if (Files.exists(file)) {
            String s = Files.readString(file, StandardCharsets.US_ASCII).trim();
            try {
                return UUID.fromString(s);
            } catch (IllegalArgumentException e) {
                throw new IOException(file + " does not hold a machine GUID: '" + s + "'");
            }
        }
        Files.createDirectories(file.getParent());
        UUID guid = UUID.randomUUID();
        Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
        Files.writeString(tmp, guid.toString(), StandardCharsets.US_ASCII);
        Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE);
        return guid;
    }
}
