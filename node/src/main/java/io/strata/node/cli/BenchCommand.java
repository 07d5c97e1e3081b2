package io.strata.node.cli;

import picocli.CommandLine.Command;
import picocli.CommandLine.HelpCommand;
import picocli.CommandLine;

/** {@code strata bench}: the benchmarks that run from the node's jar. */
@Command(name = "bench", description = "Benchmarks of Strata's components.",
        subcommands = {BenchEngineCommand.class, BenchReplayCommand.class, HelpCommand.class})
public final class BenchCommand implements Runnable {
    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public void run() {
        throw new CommandLine.ParameterException(spec.commandLine(), "name a benchmark: engine, replay");
    }
}
