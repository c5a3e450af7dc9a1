package dev.tspipe.model.devices;

import dev.tspipe.schemas.Device;
import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The device filter: parsing every form of bad input into a refusal that names the parameter, and exact AND matching against an oracle. */
class DeviceFilterTest {

    private static final List<String> VALUES = List.of("a", "b", "c");

    private static Device device(String id, String tenant, String site, String type, Map<String, String> labels) {
        return Device.newBuilder().setId(id).setTenant(tenant).setSite(site).setType(type).setLabels(labels)
                .setRegistered(Instant.EPOCH).build();
    }

    private static Map<String, List<String>> query(String... pairs) {
        Map<String, List<String>> parameters = new LinkedHashMap<>();
        for (int i = 0; i < pairs.length; i += 2) {
            parameters.computeIfAbsent(pairs[i], k -> new ArrayList<>()).add(pairs[i + 1]);
        }
        return parameters;
    }

    @Test
    void parametersBecomeTheFilter() {
        DeviceFilter filter = DeviceFilter.parse(query("site", "plant-1", "type", "press", "label.line", "3",
                "label.a.b", "x", "tenant", "acme", "limit", "5"), Set.of("limit"));
        assertThat(filter).isEqualTo(new DeviceFilter("plant-1", "press", "acme", Map.of("line", "3", "a.b", "x")));
        assertThat(DeviceFilter.parse(query(), Set.of())).isEqualTo(DeviceFilter.ALL);
    }

    @Test
    void badParametersAreRefusedNamingTheParameter() {
        Map<Map<String, List<String>>, String> refused = new LinkedHashMap<>();
        refused.put(query("label.", "x"), "label.: a label filter needs the label's name");
        refused.put(query("colour", "red"), "colour: not a parameter of this route");
        refused.put(query("limit", "5"), "limit: not a parameter of this route");
        refused.put(query("site", ""), "site: empty");
        refused.put(query("label.line", ""), "label.line: empty");
        refused.put(query("site", "a", "site", "b"), "site: given 2 times");
        refused.put(query("label.x", "1", "label.x", "1"), "label.x: given 2 times");
        refused.forEach((parameters, message) -> assertThatThrownBy(() -> DeviceFilter.parse(parameters, Set.of()))
                .as(parameters.toString()).isInstanceOfSatisfying(InvalidFilterException.class, e -> {
                    assertThat(e.getMessage()).startsWith(message);
                    assertThat(e.getMessage()).isEqualTo(e.parameter() + ": " + e.reason());
                }));
    }

    @Test
    void aFilterPicksExactlyTheDevicesWhereEveryGivenFieldIsEqualOnSeededRandomDevices() {
        long seed = Long.getLong("tspipe.seed", 42L);
        Random random = new Random(seed);
        List<Device> devices = new ArrayList<>();
        for (int i = 0; i < 500; i++) {
            Map<String, String> labels = new TreeMap<>();
            for (String name : List.of("line", "fw")) {
                if (random.nextBoolean()) {
                    labels.put(name, pick(random));
                }
            }
            devices.add(device("d" + i, random.nextBoolean() ? null : pick(random), random.nextInt(4) == 0 ? null : pick(random),
                    random.nextInt(4) == 0 ? null : pick(random), labels));
        }
        for (int round = 0; round < 300; round++) {
            Map<String, String> given = new TreeMap<>();
            for (String field : List.of("site", "type", "tenant", "label.line", "label.fw", "label.none")) {
                if (random.nextInt(3) == 0) {
                    given.put(field, pick(random));
                }
            }
            Map<String, List<String>> parameters = new LinkedHashMap<>();
            given.forEach((name, value) -> parameters.put(name, List.of(value)));
            DeviceFilter filter = DeviceFilter.parse(parameters, Set.of());
            for (Device device : devices) {
                boolean expected = given.entrySet().stream().allMatch(g -> g.getValue().equals(switch (g.getKey()) {
                    case "site" -> device.getSite();
                    case "type" -> device.getType();
                    case "tenant" -> device.getTenant();
                    default -> device.getLabels().get(g.getKey().substring("label.".length()));
                }));
                assertThat(filter.matches(device)).as("seed %d: %s on %s", seed, given, device).isEqualTo(expected);
            }
        }
    }

    @Test
    void aFilterOnAFieldNeverPicksADeviceWithoutIt() {
        Device bare = device("d", null, null, null, Map.of());
        assertThat(DeviceFilter.ALL.matches(bare)).isTrue();
        assertThat(new DeviceFilter("s", null, null, Map.of()).matches(bare)).isFalse();
        assertThat(new DeviceFilter(null, null, "t", Map.of()).matches(bare)).isFalse();
        assertThat(new DeviceFilter(null, null, null, Map.of("line", "1")).matches(bare)).isFalse();
        assertThat(DeviceFilter.ALL.withTenant("t").matches(device("d", "t", null, null, Map.of()))).isTrue();
    }

    private static String pick(Random random) {
        return VALUES.get(random.nextInt(VALUES.size()));
    }
}
