package io.strata.testsupport;

import io.netty.util.ResourceLeakDetector;
import io.netty.util.ResourceLeakDetectorFactory;

import java.lang.ref.ReferenceQueue;
import java.lang.ref.WeakReference;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * Netty's leak reports as test failures: a {@link ResourceLeakDetectorFactory} whose detectors
 * keep every report (besides logging it as Netty does), so that {@link ResourceGuard} can fail
 * the test during which it appeared. Installed before the first detector is created (the guard
 * is loaded when the test engine starts, before any test class initialises Netty's buffers).
 *
 * <p>Loaded only where Netty is on the test class path.
 */
final class NettyLeaks {

    private static final List<String> REPORTS = new CopyOnWriteArrayList<>();
    private static final List<ResourceLeakDetector<?>> DETECTORS = new CopyOnWriteArrayList<>();
    private static volatile boolean installed;

    private NettyLeaks() {
    }

    static synchronized void install() {
        if (installed) {
            return;
        }
        ResourceLeakDetectorFactory.setResourceLeakDetectorFactory(new ResourceLeakDetectorFactory() {
            @Override
            @SuppressWarnings("deprecation")
            public <T> ResourceLeakDetector<T> newResourceLeakDetector(Class<T> resource, int samplingInterval,
                                                                       long maxActive) {
                return detector(resource, samplingInterval);
            }

            @Override
            public <T> ResourceLeakDetector<T> newResourceLeakDetector(Class<T> resource, int samplingInterval) {
                return detector(resource, samplingInterval);
            }
        });
        installed = true;
    }

    private static <T> ResourceLeakDetector<T> detector(Class<T> resource, int samplingInterval) {
        ResourceLeakDetector<T> d = new ResourceLeakDetector<>(resource, samplingInterval) {
            @Override
            protected boolean needReport() {
                return true; // also where no logging backend is bound (Netty then drops the report)
            }

            @Override
            protected void reportTracedLeak(String resourceType, String records) {
                REPORTS.add("LEAK: " + resourceType + ".release() was not called before it was garbage-collected."
                        + records);
                super.reportTracedLeak(resourceType, records);
            }

            @Override
            protected void reportUntracedLeak(String resourceType) {
                REPORTS.add("LEAK: " + resourceType + ".release() was not called before it was garbage-collected"
                        + " (no records: run with -Dio.netty.leakDetectionLevel=paranoid)");
                super.reportUntracedLeak(resourceType);
            }
        };
        DETECTORS.add(d);
        return d;
    }

    /**
     * A full collection, and the reference handler's work after it: the sentinel is enqueued
     * after the references the same collection found unreachable (bounded wait).
     */
    private static void collectGarbage() {
        ReferenceQueue<Object> queue = new ReferenceQueue<>();
        WeakReference<Object> sentinel = new WeakReference<>(new Object(), queue);
        System.gc();
        try {
            queue.remove(2000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        sentinel.clear();
    }

    /** Whether a detector was created: Netty tracks something in this JVM. */
    static boolean inUse() {
        return !DETECTORS.isEmpty();
    }

    /**
     * Collects garbage and makes every detector look at its queue of collected, unreleased
     * objects (Netty only does that when it tracks a new one); returns and forgets the reports.
     */
    @SuppressWarnings({"unchecked", "rawtypes"})
    static List<String> collect() {
        if (!DETECTORS.isEmpty()) {
            collectGarbage();
            for (ResourceLeakDetector d : DETECTORS) {
                // tracking an object polls the queue and reports what it finds; the tracker is closed at once
                Object probe = new Object();
                var tracker = d.track(probe);
                if (tracker != null) {
                    tracker.close(probe);
                }
            }
        }
        List<String> out = new ArrayList<>(REPORTS);
        REPORTS.removeAll(out);
        return out;
    }
}
