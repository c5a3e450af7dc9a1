package dev.tspipe.app;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine;
import picocli.CommandLine.IExecutionExceptionHandler;
import picocli.CommandLine.IParameterExceptionHandler;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.ParseResult;
import picocli.CommandLine.UnmatchedArgumentException;

import java.io.PrintWriter;

/**
 * Turns a failure of a command into one line a user can act on, with the cause chain,
 * instead of a stack trace; the stack trace goes to the log at DEBUG. Invalid arguments get
 * their one line and a pointer to the command's help, not the whole usage text.
 */
final class UserFacingErrors implements IExecutionExceptionHandler, IParameterExceptionHandler {

    private static final Logger log = LoggerFactory.getLogger(UserFacingErrors.class);

    @Override
    public int handleExecutionException(Exception e, CommandLine commandLine, ParseResult parseResult) {
        log.debug("Command failed", e);
        StringBuilder message = new StringBuilder(commandLine.getCommandSpec().qualifiedName())
                .append(": ").append(e.getMessage());
        for (Throwable cause = e.getCause(); cause != null && cause != cause.getCause(); cause = cause.getCause()) {
            if (cause.getMessage() != null && !message.toString().contains(cause.getMessage())) {
                message.append("\n  caused by: ").append(cause.getMessage());
            }
        }
        commandLine.getErr().println(commandLine.getColorScheme().errorText(message.toString()));
        return e instanceof UserError ? CommandLine.ExitCode.USAGE : CommandLine.ExitCode.SOFTWARE;
    }

    @Override
    public int handleParseException(ParameterException e, String[] args) {
        CommandLine commandLine = e.getCommandLine();
        String command = commandLine.getCommandSpec().qualifiedName();
        PrintWriter err = commandLine.getErr();
        err.println(commandLine.getColorScheme().errorText(command + ": " + e.getMessage()));
        UnmatchedArgumentException.printSuggestions(e, err);
        err.println("Run '" + command + " --help' for usage.");
        return commandLine.getCommandSpec().exitCodeOnInvalidInput();
    }
}
