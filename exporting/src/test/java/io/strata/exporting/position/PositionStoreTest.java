package io.strata.exporting.position;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.UUID;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class PositionStoreTest {

    @TempDir
    Path dir;

    private static final UUID A = UUID.fromString("11111111-2222-4333-8444-555555555555");
    private static final UUID B = UUID.fromString("aaaaaaaa-bbbb-4ccc-8ddd-eeeeeeeeeeee");

    @Test
    void positionsSurviveAReopenAndEveryCommitReplacesTheFileWhole() throws Exception {
        PositionStore s = PositionStore.open(dir, "vm");
        assertEquals(-1, s.position(A));
        assertTrue(s.released(A));
        s.commit(A, 1_700_000_010L);
        s.commit(B, 1_700_000_020L);
        s.release(B, 1_700_000_030L);
        s.commit(A, 1_700_000_040L);
        assertFalse(Files.exists(dir.resolve("vm.positions.tmp")));
        PositionStore again = PositionStore.open(dir, "vm");
        assertEquals(1_700_000_040L, again.position(A));
        assertFalse(again.released(A));
        assertEquals(1_700_000_030L, again.position(B));
        assertTrue(again.released(B));
        assertEquals(PositionStore.HEADER + "\n" + A + " 1700000040\n" + B + " 1700000030 released\n",
                Files.readString(dir.resolve("vm.positions")));
    }

    @Test
    void aLeftoverTemporaryFileFromAKillIsIgnored() throws Exception {
        PositionStore.open(dir, "vm").commit(A, 100);
        Files.writeString(dir.resolve("vm.positions.tmp"), A + " 1"); // torn write of a killed process
        PositionStore s = PositionStore.open(dir, "vm");
        assertEquals(100, s.position(A));
        assertFalse(Files.exists(dir.resolve("vm.positions.tmp")));
    }

    @Test
    void aDamagedFileStopsTheOpenNamingTheLine() throws Exception {
        Files.writeString(dir.resolve("vm.positions"), PositionStore.HEADER + "\n" + A + " 12\nnot-a-guid 5\n");
        IOException e = assertThrows(IOException.class, () -> PositionStore.open(dir, "vm"));
        assertTrue(e.getMessage().endsWith("vm.positions:3: not 'machine-guid second [released]': not-a-guid 5"),
                e.getMessage());
    }
}
