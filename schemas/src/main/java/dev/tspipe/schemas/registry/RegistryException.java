package dev.tspipe.schemas.registry;

/**
 * A failure of a schema registry operation, carrying the HTTP status and the error code that
 * Confluent Schema Registry answers with, so that the embedded registry and the client agree
 * with Confluent's on every failure.
 *
 * <table>
 *   <caption>Error codes</caption>
 *   <tr><th>status</th><th>code</th><th>meaning</th></tr>
 *   <tr><td>404</td><td>40401</td><td>subject not found</td></tr>
 *   <tr><td>404</td><td>40402</td><td>version not found</td></tr>
 *   <tr><td>404</td><td>40403</td><td>schema not found</td></tr>
 *   <tr><td>404</td><td>40408</td><td>subject has no subject-level compatibility</td></tr>
 *   <tr><td>409</td><td>409</td><td>incompatible schema</td></tr>
 *   <tr><td>422</td><td>42201</td><td>invalid schema</td></tr>
 *   <tr><td>422</td><td>42202</td><td>invalid version</td></tr>
 *   <tr><td>422</td><td>42203</td><td>invalid compatibility level</td></tr>
 *   <tr><td>500</td><td>50001</td><td>error in the backend data store</td></tr>
 * </table>
 */
public final class RegistryException extends RuntimeException {

    public static final int SUBJECT_NOT_FOUND = 40401;
    public static final int VERSION_NOT_FOUND = 40402;
    public static final int SCHEMA_NOT_FOUND = 40403;
    public static final int SUBJECT_COMPATIBILITY_NOT_CONFIGURED = 40408;
    public static final int INCOMPATIBLE_SCHEMA = 409;
    public static final int INVALID_SCHEMA = 42201;
    public static final int INVALID_VERSION = 42202;
    public static final int INVALID_COMPATIBILITY_LEVEL = 42203;
    public static final int STORE_ERROR = 50001;

    private final int httpStatus;
    private final int errorCode;

    public RegistryException(int httpStatus, int errorCode, String message) {
        super(message);
        this.httpStatus = httpStatus;
        this.errorCode = errorCode;
    }

    public RegistryException(int httpStatus, int errorCode, String message, Throwable cause) {
        super(message, cause);
        this.httpStatus = httpStatus;
        this.errorCode = errorCode;
    }

    public int httpStatus() {
        return httpStatus;
    }

    public int errorCode() {
        return errorCode;
    }

    public static RegistryException subjectNotFound(String subject) {
        return new RegistryException(404, SUBJECT_NOT_FOUND, "Subject '" + subject + "' not found.");
    }

    public static RegistryException versionNotFound(int version) {
        return new RegistryException(404, VERSION_NOT_FOUND, "Version " + version + " not found.");
    }

    public static RegistryException schemaNotFound(int id) {
        return new RegistryException(404, SCHEMA_NOT_FOUND, "Schema " + id + " not found");
    }

    public static RegistryException schemaNotFoundInSubject(String subject) {
        return new RegistryException(404, SCHEMA_NOT_FOUND, "Schema not found under subject '" + subject + "'");
    }

    public static RegistryException subjectCompatibilityNotConfigured(String subject) {
        return new RegistryException(404, SUBJECT_COMPATIBILITY_NOT_CONFIGURED,
                "Subject '" + subject + "' does not have subject-level compatibility configured");
    }

    public static RegistryException incompatible(String message) {
        return new RegistryException(409, INCOMPATIBLE_SCHEMA, message);
    }

    public static RegistryException invalidSchema(String detail) {
        return new RegistryException(422, INVALID_SCHEMA, "Invalid schema: " + detail);
    }

    public static RegistryException invalidVersion(String version) {
        return new RegistryException(422, INVALID_VERSION, "The specified version '" + version
                + "' is not a valid version id. Allowed values are between [1, 2^31-1] and the string \"latest\"");
    }

    public static RegistryException invalidCompatibilityLevel(String level) {
        return new RegistryException(422, INVALID_COMPATIBILITY_LEVEL, "Invalid compatibility level: " + level
                + ". Valid values are NONE, BACKWARD, BACKWARD_TRANSITIVE, FORWARD, FORWARD_TRANSITIVE, FULL, FULL_TRANSITIVE");
    }
}
