package dev.tspipe.schemas.registry;

/** One version of a subject: the answer of {@code GET /subjects/{s}/versions/{v}}. */
public record RegisteredSchema(String subject, int version, int id, String schema) {
}
