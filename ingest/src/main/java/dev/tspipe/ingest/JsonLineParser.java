package dev.tspipe.ingest;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * JSON Lines: one object per line with the fields {@code device, metric, timestamp, value} and
 * optionally {@code tenant} (a string or null) and {@code tags} (an object of strings). The
 * timestamp is a number of epoch milliseconds or a string: digits or an ISO-8601 instant.
 * Other fields are ignored.
 */
final class JsonLineParser implements LineParser {

    private static final ObjectMapper JSON = new ObjectMapper().enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);

    @Override
    public ParseResult parse(long lineNumber, String line) {
        try {
            JsonNode node;
            try {
                node = JSON.readTree(line);
            } catch (JsonProcessingException e) {
                throw new InvalidLineException("not valid JSON (" + e.getOriginalMessage()
                        + "): each line must be one JSON object such as {\"device\":\"d1\",\"metric\":\"temperature\","
                        + "\"timestamp\":1796032800000,\"value\":21.5}");
            }
            if (node == null || !node.isObject()) {
                throw new InvalidLineException("not a JSON object: each line must be one object such as "
                        + "{\"device\":\"d1\",\"metric\":\"temperature\",\"timestamp\":1796032800000,\"value\":21.5}");
            }
            return new ParseResult.Parsed(lineNumber, ReadingFields.reading(
                    optionalText(node, ReadingFields.TENANT),
                    text(node, ReadingFields.DEVICE),
                    text(node, ReadingFields.METRIC),
                    timestamp(node),
                    value(node),
                    tags(node)));
        } catch (InvalidLineException e) {
            return new ParseResult.Rejected(lineNumber, e.getMessage());
        }
    }

    private static JsonNode required(JsonNode node, String field) throws InvalidLineException {
        JsonNode value = node.get(field);
        if (value == null || value.isNull()) {
            throw new InvalidLineException("field '" + field + "' is missing: every reading needs device, metric, timestamp and value");
        }
        return value;
    }

    private static String text(JsonNode node, String field) throws InvalidLineException {
        JsonNode value = required(node, field);
        if (!value.isTextual()) {
            throw new InvalidLineException("field '" + field + "' is " + value.getNodeType().name().toLowerCase()
                    + " " + value + ", not a string: write it in quotes");
        }
        return value.textValue();
    }

    private static String optionalText(JsonNode node, String field) throws InvalidLineException {
        JsonNode value = node.get(field);
        if (value == null || value.isNull()) {
            return null;
        }
        if (!value.isTextual()) {
            throw new InvalidLineException("field '" + field + "' is " + value + ", not a string: write it in quotes, or null");
        }
        return value.textValue();
    }

    private static long timestamp(JsonNode node) throws InvalidLineException {
        JsonNode value = required(node, ReadingFields.TIMESTAMP);
        if (value.isIntegralNumber() && value.canConvertToLong()) {
            if (value.longValue() < 0) {
                throw new InvalidLineException("timestamp " + value + " is before 1970-01-01T00:00:00Z: tspipe stores times from 1970 on");
            }
            return value.longValue();
        }
        if (value.isTextual()) {
            return ReadingFields.timestamp(value.textValue());
        }
        throw new InvalidLineException("timestamp " + value + " is not a time: write whole epoch milliseconds "
                + "(1796032800000) or an ISO-8601 instant in quotes (\"2026-11-30T10:00:00Z\")");
    }

    private static double value(JsonNode node) throws InvalidLineException {
        JsonNode value = required(node, ReadingFields.VALUE);
        if (!value.isNumber()) {
            throw new InvalidLineException("value " + value + " is not a JSON number: write it without quotes, such as 21.5");
        }
        return ReadingFields.finite(value.doubleValue(), value.toString());
    }

    private static Map<String, String> tags(JsonNode node) throws InvalidLineException {
        Map<String, String> tags = new LinkedHashMap<>();
        JsonNode value = node.get(ReadingFields.TAGS);
        if (value == null || value.isNull()) {
            return tags;
        }
        if (!value.isObject()) {
            throw new InvalidLineException("tags " + value + " is not an object: write tags as {\"site\":\"berlin\",\"floor\":\"2\"}");
        }
        for (Map.Entry<String, JsonNode> tag : value.properties()) {
            JsonNode tagValue = tag.getValue();
            if (tagValue.isContainerNode() || tagValue.isNull()) {
                throw new InvalidLineException("tag '" + tag.getKey() + "' is " + tagValue + ": tag values must be strings or numbers");
            }
            tags.put(tag.getKey(), tagValue.asText());
        }
        return tags;
    }
}
