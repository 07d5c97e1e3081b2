package io.strata.node.cli;

import picocli.CommandLine.Command;

/** {@code strata db}: commands that work on a database directory. */
@Command(name = "db",
        subcommands = {
                DbVerifyCommand.class,
        },
        mixinStandardHelpOptions = true,
        description = "Work on a database directory.")
public final class DbCommand {
}
