package dev.tspipe.app;

import picocli.CommandLine;

import java.io.PrintWriter;
import java.io.StringWriter;

/**
 * The result of running the {@code tspipe} command line in-process, as a user would type it:
 * its exit code and what it printed (line separators normalised to {@code \n}).
 */
record CommandRun(int exitCode, String out, String err) {

    static CommandRun of(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CommandLine commandLine = TspipeCommand.newCommandLine();
        commandLine.setOut(new PrintWriter(out));
        commandLine.setErr(new PrintWriter(err));
        int exitCode = commandLine.execute(args);
        return new CommandRun(exitCode, out.toString().replace(System.lineSeparator(), "\n"),
                err.toString().replace(System.lineSeparator(), "\n"));
    }

    /** The value of one line of a key/value listing, e.g. {@code key} in {@code tspipe keys encode}'s output. */
    String part(String label) {
        return out.lines()
                .filter(line -> line.startsWith(label + " "))
                .map(line -> line.substring(label.length()).strip())
                .findFirst()
                .orElseThrow(() -> new AssertionError("no '" + label + "' line in:\n" + out));
    }
}
