package dev.tspipe.schemas.registry;

/**
 * A change of a registry's state. A durable registry writes each event to its journal before
 * applying it, and rebuilds its state after a restart by applying the journal in order.
 */
public sealed interface RegistryEvent {

    /** A schema became version {@code version} of {@code subject} with global id {@code id}. */
    record SchemaRegistered(String subject, int version, int id, String schema) implements RegistryEvent {
    }

    /** The compatibility level of a subject, or the global one when {@code subject} is null. */
    record CompatibilityChanged(String subject, CompatibilityLevel level) implements RegistryEvent {
    }

    /** All versions of a subject were (soft) deleted; their ids still resolve. */
    record SubjectDeleted(String subject) implements RegistryEvent {
    }
}
