package io.strata.testsupport;

import java.util.List;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.platform.testkit.engine.EngineTestKit;
import org.junit.platform.testkit.engine.Event;
import org.junit.platform.testkit.engine.Events;
import org.junit.platform.engine.TestExecutionResult;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;

/** The guard fails a test for each kind of leak, and lets a clean test and a declared per-class sharing pass. */
class ResourceGuardTest {

    @AfterEach
    void cleanUp() throws Exception {
        LeakFixtures.cleanUp();
    }

    private static Events run(Class<?> fixture) {
        return EngineTestKit.engine("junit-jupiter")
                .configurationParameter("junit.jupiter.extensions.autodetection.enabled", "true")
                .configurationParameter("strata.guard.settle.millis", "300")
                .configurationParameter("strata.guard.offheap", "io.strata.testsupport.LeakFixtures#offHeapBytes")
                .selectors(selectClass(fixture))
                .execute()
                .testEvents();
    }

    private static List<String> failures(Events events) {
        return events.failed().stream()
                .map(Event::getPayload)
                .map(p -> p.map(TestExecutionResult.class::cast).flatMap(TestExecutionResult::getThrowable)
                        .map(Throwable::getMessage).orElse("?"))
                .toList();
    }

    private static String onlyFailure(Class<?> fixture) {
        List<String> f = failures(run(fixture));
        assertEquals(1, f.size(), f.toString());
        return f.get(0);
    }

    @Test
    void aCleanTestPasses() {
        assertEquals(List.of(), failures(run(LeakFixtures.CleanFixture.class)));
    }

    @Test
    void aThreadLeftRunningFailsTheTest() {
        String m = onlyFailure(LeakFixtures.ThreadFixture.class);
        assertTrue(m.startsWith("resource guard, after the test leavesAThreadRunning():"), m);
        assertTrue(m.contains("non-daemon thread still running: 'leaked-by-fixture'"), m);
    }

    @Test
    void aFileLeftOpenFailsTheTest() {
        String m = onlyFailure(LeakFixtures.FileFixture.class);
        assertTrue(m.contains("file descriptor left open: ") && m.contains(LeakFixtures.file.toString()), m);
    }

    @Test
    void offHeapMemoryNotFreedFailsTheTest() {
        String m = onlyFailure(LeakFixtures.OffHeapFixture.class);
        assertTrue(m.contains("off-heap memory not freed: 4096 bytes more in io.strata.testsupport.LeakFixtures"
                + "#offHeapBytes (0 before, 4096 after)"), m);
    }

    @Test
    void aNettyLeakReportFailsTheTest() {
        String m = onlyFailure(LeakFixtures.NettyFixture.class);
        assertTrue(m.contains("LEAK: ByteBuf.release() was not called before it was garbage-collected"), m);
        assertTrue(m.contains("dropsABufferWithoutReleasingIt"), "paranoid records name the allocation site: " + m);
    }

    @Test
    void sharingDeclaredPerClassIsCheckedAfterTheClass() {
        assertEquals(List.of(), failures(run(LeakFixtures.PerClassFixture.class)));
        List<String> undeclared = failures(run(LeakFixtures.SameButPerTestFixture.class));
        assertEquals(1, undeclared.size(), undeclared.toString());
        assertTrue(undeclared.get(0).contains("'shared-by-fixture'"), undeclared.get(0));
    }
}
