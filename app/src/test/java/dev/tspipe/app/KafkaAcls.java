package dev.tspipe.app;

import org.apache.kafka.common.acl.AccessControlEntry;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.acl.AclPermissionType;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourcePattern;
import org.apache.kafka.common.resource.ResourceType;

import java.util.ArrayList;
import java.util.List;

/**
 * The ACLs that docs/security.md lists for each tspipe client, as the bindings a test grants: no more
 * than these, so that the test fails if tspipe comes to need one the page does not list.
 */
final class KafkaAcls {

    private KafkaAcls() {
    }

    /**
     * {@code tspipe node}: read the readings and the devices, write the dead letters, own its internal topics, group and
     * transactions.
     */
    static List<AclBinding> forNode(String user, String applicationId, String readingsTopic, String dlqTopic) {
        List<AclBinding> acls = new ArrayList<>();
        acls.add(allow(user, ResourceType.TOPIC, readingsTopic, PatternType.LITERAL, AclOperation.DESCRIBE));
        acls.add(allow(user, ResourceType.TOPIC, readingsTopic, PatternType.LITERAL, AclOperation.READ));
        acls.add(allow(user, ResourceType.TOPIC, dlqTopic, PatternType.LITERAL, AclOperation.DESCRIBE));
        acls.add(allow(user, ResourceType.TOPIC, dlqTopic, PatternType.LITERAL, AclOperation.WRITE));
        // The devices topic, read whole by the global thread (no group).
        acls.add(allow(user, ResourceType.TOPIC, "devices", PatternType.LITERAL, AclOperation.DESCRIBE));
        acls.add(allow(user, ResourceType.TOPIC, "devices", PatternType.LITERAL, AclOperation.READ));
        // Changelog and repartition topics: <application id>-...
        acls.add(allow(user, ResourceType.TOPIC, applicationId + "-", PatternType.PREFIXED, AclOperation.ALL));
        acls.add(allow(user, ResourceType.GROUP, applicationId, PatternType.LITERAL, AclOperation.READ));
        acls.add(allow(user, ResourceType.GROUP, applicationId, PatternType.LITERAL, AclOperation.DESCRIBE));
        // Exactly-once: transactional ids <application id>-<process id>-<thread>
        acls.add(allow(user, ResourceType.TRANSACTIONAL_ID, applicationId + "-", PatternType.PREFIXED, AclOperation.WRITE));
        acls.add(allow(user, ResourceType.TRANSACTIONAL_ID, applicationId + "-", PatternType.PREFIXED, AclOperation.DESCRIBE));
        return acls;
    }

    /** {@code tspipe generate} and {@code import}: write readings. */
    static List<AclBinding> forProducer(String user, String readingsTopic) {
        return List.of(allow(user, ResourceType.TOPIC, readingsTopic, PatternType.LITERAL, AclOperation.DESCRIBE),
                allow(user, ResourceType.TOPIC, readingsTopic, PatternType.LITERAL, AclOperation.WRITE));
    }

    /** {@code tspipe replay} (reading) and {@code tspipe keys analyze --topic}: read a topic by partition, without a group. */
    static List<AclBinding> forReader(String user, String topic) {
        return List.of(allow(user, ResourceType.TOPIC, topic, PatternType.LITERAL, AclOperation.DESCRIBE),
                allow(user, ResourceType.TOPIC, topic, PatternType.LITERAL, AclOperation.READ));
    }

    /** {@code tspipe registry}: its journal topic, created on the first start. */
    static List<AclBinding> forRegistry(String user, String topic) {
        List<AclBinding> acls = new ArrayList<>();
        for (AclOperation operation : List.of(AclOperation.CREATE, AclOperation.DESCRIBE, AclOperation.DESCRIBE_CONFIGS,
                AclOperation.READ, AclOperation.WRITE)) {
            acls.add(allow(user, ResourceType.TOPIC, topic, PatternType.LITERAL, operation));
        }
        return acls;
    }

    private static AclBinding allow(String user, ResourceType type, String name, PatternType pattern, AclOperation operation) {
        return new AclBinding(new ResourcePattern(type, name, pattern),
                new AccessControlEntry("User:" + user, "*", operation, AclPermissionType.ALLOW));
    }
}
