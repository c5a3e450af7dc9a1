package dev.tspipe.model.devices;

import dev.tspipe.schemas.Device;

import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;

/**
 * Which devices a request picks by their metadata: {@code site=}, {@code type=}, {@code tenant=} and any number of
 * {@code label.<name>=<value>}, each an exact match, all of them together (AND). No parameter picks every device.
 * A device that has not got the field or label is not picked by a filter on it.
 *
 * @param tenant null for any tenant
 * @param labels label name to the value it must have
 */
public record DeviceFilter(String site, String type, String tenant, Map<String, String> labels) {

    public static final String SITE = "site";
    public static final String TYPE = "type";
    public static final String TENANT = "tenant";
    public static final String LABEL_PREFIX = "label.";

    /** Every device. */
    public static final DeviceFilter ALL = new DeviceFilter(null, null, null, Map.of());

    public DeviceFilter {
        labels = Map.copyOf(labels);
    }

    /**
     * The filter of a request's query parameters; an {@link InvalidFilterException} (an HTTP edge answers it with a
     * 400) that says what to fix for a parameter that is neither a filter nor one of {@code others} (the route's own),
     * a {@code label.} without a name, a filter given twice (an AND of two values of one field picks nothing: surely a
     * mistake) or with an empty value.
     */
    public static DeviceFilter parse(Map<String, List<String>> parameters, Set<String> others) {
        String site = null;
        String type = null;
        String tenant = null;
        Map<String, String> labels = new TreeMap<>();
        for (Map.Entry<String, List<String>> parameter : parameters.entrySet()) {
            String name = parameter.getKey();
            if (others.contains(name)) {
                continue;
            }
            boolean label = name.startsWith(LABEL_PREFIX);
            if (!label && !name.equals(SITE) && !name.equals(TYPE) && !name.equals(TENANT)) {
                throw new InvalidFilterException(name, "not a parameter of this route; filter devices with site=, type=, "
                        + "tenant= and label.<name>=<value>" + (others.isEmpty() ? "" : ", and use " + String.join(", ", others)));
            }
            if (label && name.length() == LABEL_PREFIX.length()) {
                throw new InvalidFilterException(name, "a label filter needs the label's name: label.<name>=<value>, "
                        + "e.g. label.line=3");
            }
            List<String> values = parameter.getValue();
            if (values.size() != 1) {
                throw new InvalidFilterException(name, "given " + values.size() + " times; give it once (the filters are "
                        + "exact and all must hold, so two values of one field pick nothing)");
            }
            String value = values.get(0);
            if (value.isEmpty()) {
                throw new InvalidFilterException(name, "empty; give the value to match, or leave the parameter out");
            }
            if (label) {
                labels.put(name.substring(LABEL_PREFIX.length()), value);
            } else if (name.equals(SITE)) {
                site = value;
            } else if (name.equals(TYPE)) {
                type = value;
            } else {
                tenant = value;
            }
        }
        return new DeviceFilter(site, type, tenant, labels);
    }

    /** This filter for {@code tenant} (null: any tenant) instead of the one it names. */
    public DeviceFilter withTenant(String tenant) {
        return new DeviceFilter(site, type, tenant, labels);
    }

    public boolean matches(Device device) {
        if (site != null && !site.equals(device.getSite())
                || type != null && !type.equals(device.getType())
                || tenant != null && !tenant.equals(device.getTenant())) {
            return false;
        }
        for (Map.Entry<String, String> label : labels.entrySet()) {
            if (!Objects.equals(label.getValue(), device.getLabels().get(label.getKey()))) {
                return false;
            }
        }
        return true;
    }
}
