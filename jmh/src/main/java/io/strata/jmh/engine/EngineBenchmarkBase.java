package io.strata.jmh.engine;

import java.util.concurrent.TimeUnit;

import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The run settings every engine benchmark inherits (JMH reads these annotations from
 * superclasses; a benchmark method or subclass may override any of them).
 *
 * <ul>
 * <li>Throughput in operations per second, where every benchmark declares with
 *     {@code @OperationsPerInvocation} that one operation is one <em>point</em> (one storage
 *     number, one value), so that every score reads as points/s.</li>
 * <li>Short by default (3 x 2 s warmup, 5 x 2 s measurement, one fork): the development machine
 *     has 2 cores and CI does not run JMH. Pass {@code -wi/-i/-w/-r/-f} for longer runs.</li>
 * <li>The fork gets the project's JVM flags ({@code strata.jvm.flags} in {@code jvm.properties}
 *     at the root): Chronicle Bytes needs the {@code --add-exports}/{@code --add-opens}. An
 *     annotation takes only constants, so this is a copy: keep it in sync with that list. A {@code -jvmArgsAppend} given on the command
 *     line <em>replaces</em> this list, so repeat these flags there when adding your own (e.g. a
 *     heap size). On JDK 24+ append {@code --sun-misc-unsafe-memory-access=allow} too (the root
 *     pom's {@code strata.jvm.flags.extra}); JDK 17 refuses that flag, so it is not here.</li>
 * </ul>
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = {
        "--add-exports=java.base/sun.nio.ch=ALL-UNNAMED",
        "--add-opens=java.base/java.lang.reflect=ALL-UNNAMED",
        "--add-exports=java.base/jdk.internal.ref=ALL-UNNAMED",
        "--add-exports=java.base/jdk.internal.misc=ALL-UNNAMED",
        "--add-opens=java.base/java.nio=ALL-UNNAMED",
        "--add-opens=java.base/sun.nio.ch=ALL-UNNAMED",
        "--add-opens=java.base/java.lang=ALL-UNNAMED",
        "--enable-native-access=ALL-UNNAMED",
        "-Dchronicle.analytics.disable=true",
        "-Dchronicle.announcer.disable=true"})
public abstract class EngineBenchmarkBase {
}
