package dev.tspipe.app;

import picocli.CommandLine.IVersionProvider;

/** Reads the version from the jar's manifest, so that it is written in one place: the POM. */
final class VersionProvider implements IVersionProvider {

    @Override
    public String[] getVersion() {
        String version = TspipeCommand.class.getPackage().getImplementationVersion();
        return new String[] {
                "tspipe " + (version == null ? "(development build)" : version),
                "Java " + System.getProperty("java.version") + " (" + System.getProperty("java.vm.name") + ")"
        };
    }
}
