package io.strata.node.compare;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ProcessProbeTest {

    @Test
    void ticksAreUtimePlusStimeEvenWhenTheNameHoldsSpacesAndParentheses() {
        // fields after the name: state ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt utime stime
        String stat = "4242 (C2 Compiler (x) 1) S 1 4242 4242 0 -1 4194560 100 0 0 0 1234 56 0 0 20 0 30 0";
        assertEquals(1234 + 56, ProcessProbe.ticksOf(stat));
    }

    @Test
    void threadsOfOneKindFormOneFamily() {
        assertEquals(ProcessProbe.family("multiThreadIoEventLoopGroup-5-1"),
                ProcessProbe.family("multiThreadIoEventLoopGroup-5-2"));
        assertEquals(ProcessProbe.family("RRDPUSH[load-child-1]"), ProcessProbe.family("RRDPUSH[load-child-27]"));
        assertEquals("STREAM_RECEIVER", ProcessProbe.family("STREAM_RECEIVER"));
    }

    @Test
    void readsThisProcessAndItsThreads() throws Exception {
        ProcessProbe.Snapshot b = ProcessProbe.read(ProcessHandle.current().pid());
        assertTrue(b.rssBytes() > 0, "RSS of this JVM");
        assertTrue(b.threads() > 1, "threads of this JVM");
        // Linux names the launcher's primordial thread after the binary; Java's threads carry their own names
        assertTrue(b.byThread().size() > 1, "its threads: " + b.byThread());
        assertTrue(b.byThread().values().stream().anyMatch(t -> t.name().startsWith("GC ")
                || t.name().startsWith("C1 ") || t.name().startsWith("C2 ")
                || t.name().equals("Finalizer")), "the JVM's own threads by name: " + b.byThread());
    }
}
