package dev.tspipe.query.devices;

import dev.tspipe.query.error.ApiException;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The devices routes' filter parameters: every refusal of the model's {@code DeviceFilter} is a 400 that names the parameter. */
class DeviceFilterParametersTest {

    private static Map<String, List<String>> query(String... pairs) {
        Map<String, List<String>> parameters = new LinkedHashMap<>();
        for (int i = 0; i < pairs.length; i += 2) {
            parameters.computeIfAbsent(pairs[i], k -> new ArrayList<>()).add(pairs[i + 1]);
        }
        return parameters;
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
        refused.forEach((parameters, message) -> assertThatThrownBy(() -> DevicesApi.parseFilter(parameters, Set.of()))
                .as(parameters.toString()).isInstanceOfSatisfying(ApiException.class, e -> {
                    assertThat(e.status()).isEqualTo(400);
                    assertThat(e.getMessage()).startsWith(message);
                }));
    }
}
