package io.strata.streaming.wire;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;

/** Writes raw LZ4 blocks sequence by sequence, so tests can say exactly what a block contains. */
final class Lz4BlockBuilder {
    private final ByteArrayOutputStream out = new ByteArrayOutputStream();

    /** A sequence: {@code literals}, then a match of {@code matchLength} (>= 4) bytes {@code offset} back. */
    Lz4BlockBuilder sequence(byte[] literals, int offset, int matchLength) {
        int literalCode = Math.min(literals.length, 15);
        int matchCode = Math.min(matchLength - 4, 15);
        out.write(literalCode << 4 | matchCode);
        writeLengthExtension(literals.length, literalCode);
        out.writeBytes(literals);
        out.write(offset & 0xFF);
        out.write(offset >>> 8 & 0xFF);
        writeLengthExtension(matchLength - 4, matchCode);
        return this;
    }

    Lz4BlockBuilder sequence(String literals, int offset, int matchLength) {
        return sequence(literals.getBytes(StandardCharsets.US_ASCII), offset, matchLength);
    }

    /** The closing literals-only sequence. */
    byte[] last(byte[] literals) {
        int literalCode = Math.min(literals.length, 15);
        out.write(literalCode << 4);
        writeLengthExtension(literals.length, literalCode);
        out.writeBytes(literals);
        return out.toByteArray();
    }

    byte[] last(String literals) {
        return last(literals.getBytes(StandardCharsets.US_ASCII));
    }

    /** The bytes written so far, possibly not a complete block. */
    byte[] partial() {
        return out.toByteArray();
    }

    private void writeLengthExtension(int length, int code) {
        if (code < 15) {
            return;
        }
        int rest = length - 15;
        while (rest >= 255) {
            out.write(255);
            rest -= 255;
        }
        out.write(rest);
    }
}
