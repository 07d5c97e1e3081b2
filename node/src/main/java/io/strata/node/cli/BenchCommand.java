package io.strata.node.cli;

import picocli.CommandLine.Command;
import picocli.CommandLine.HelpCommand;

/** {@code strata bench}: the benchmarks that run from the node's jar. */
@Command(name = "bench", description = "Benchmarks of Strata's components.",
        subcommands = {BenchEngineCommand.class, BenchReplayCommand.class, HelpCommand.class})
public final class BenchCommand implements Runnable {
    @picocli.CommandLine.Spec
    picocli.CommandLine.Model.CommandSpec spec;

    @Override
    public void run() {
        throw new picocli.CommandLine.ParameterException(spec.commandLine(), "name a benchmark: engine, replay");
    }
}
