package dev.lockstep.fuzz;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.function.Supplier;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.Tuple;
import tools.jackson.databind.JsonNode;

/**
 * Values for a schema of the OpenAPI description: mostly valid ones (so that requests get past the
 * first check), boundary ones (lengths and numbers at and past the documented limits), hostile ones
 * (control characters, lone surrogates, injection text, huge numbers) and wrong types. Values are
 * plain Java objects; {@link Json} is a literal JSON fragment, e.g. a malformed one.
 */
final class GeneratedValues {

    record Json(String text) {
    }

    /** Marks a JSON property left out of an object. */
    static final Object ABSENT = new Object();

    static final List<String> HOSTILE_STRINGS = List.of("\u0000", "reason\u0000", "a\u0001b", "\u001b[31mred", "\u007f",
            "\u0085", "\u009b", "\ud800", "x\udfff", "\uffff", "' OR 1=1 --", "\"; drop table application; --",
            "<script>alert(1)</script>", "../../etc/passwd", "%00", "${jndi:ldap://x}", "😀".repeat(40), "\u202egnp.exe");

    private final ApiDescription api;
    private final Supplier<List<Long>> applicationIds;
    private final Supplier<List<String>> taskIds;
    private final List<String> users;

    GeneratedValues(ApiDescription api, Supplier<List<Long>> applicationIds, Supplier<List<String>> taskIds, List<String> users) {
        this.api = api;
        this.applicationIds = applicationIds;
        this.taskIds = taskIds;
        this.users = users;
    }

    Arbitrary<Object> forSchema(JsonNode schema, String name) {
        JsonNode resolved = api.resolve(schema);
        if (resolved.has("enum")) {
            return enumValue(resolved);
        }
        return switch (resolved.path("type").asString("object")) {
            case "string" -> Arbitraries.frequencyOf(
                    Tuple.of(5, knownStrings(name)),
                    Tuple.of(3, Arbitraries.strings().alpha().numeric().withChars(' ', '-', '_').ofMinLength(1).ofMaxLength(40)),
                    Tuple.of(2, boundaryStrings(resolved)),
                    Tuple.of(3, Arbitraries.of(HOSTILE_STRINGS)),
                    Tuple.of(1, wrongType()));
            case "integer" -> Arbitraries.frequencyOf(
                    Tuple.of(5, ids(name)),
                    Tuple.of(2, Arbitraries.longs()),
                    Tuple.of(3, Arbitraries.of(0L, -1L, 1L, 1001L, (long) Integer.MAX_VALUE, Integer.MAX_VALUE + 1L,
                            Long.MAX_VALUE, Long.MIN_VALUE)),
                    Tuple.of(1, Arbitraries.of(new BigInteger("99999999999999999999999"), new BigDecimal("1.5"),
                            new Json("1e400"))),
                    Tuple.of(1, wrongType()));
            case "number" -> Arbitraries.frequencyOf(
                    Tuple.of(5, Arbitraries.bigDecimals().between(BigDecimal.ZERO, new BigDecimal("100000")).ofScale(2)),
                    Tuple.of(3, Arbitraries.of(BigDecimal.ZERO, new BigDecimal("-0.01"), new BigDecimal("0.001"),
                            new BigDecimal("99999999999999999.99"), new BigDecimal("999999999999999999999.99"),
                            new Json("1e400"), new Json("-1e-400"))),
                    Tuple.of(1, wrongType()));
            case "boolean" -> Arbitraries.frequencyOf(
                    Tuple.of(6, Arbitraries.of(true, false)),
                    Tuple.of(1, Arbitraries.of("yes", 1L, new Json("null"))));
            case "array" -> Arbitraries.frequencyOf(
                    Tuple.of(6, forSchema(resolved.path("items"), name).list().ofMaxSize(4).map(list -> (Object) list)),
                    Tuple.of(1, forSchema(resolved.path("items"), name).list().ofSize(25).map(list -> (Object) list)),
                    Tuple.of(1, wrongType()));
            default -> object(resolved);
        };
    }

    /** Each property present or left out, sometimes with a property the schema does not know. */
    Arbitrary<Object> object(JsonNode schema) {
        List<String> names = new ArrayList<>();
        List<Arbitrary<Object>> values = new ArrayList<>();
        for (Map.Entry<String, JsonNode> property : schema.path("properties").properties()) {
            names.add(property.getKey());
            values.add(Arbitraries.frequencyOf(Tuple.of(9, forSchema(property.getValue(), property.getKey())),
                    Tuple.of(1, Arbitraries.just(ABSENT))));
        }
        names.add("unexpectedField");
        values.add(Arbitraries.frequencyOf(Tuple.of(9, Arbitraries.just(ABSENT)), Tuple.of(1, Arbitraries.just("surprise"))));
        return Combinators.combine(values).as(generated -> {
            Map<String, Object> object = new LinkedHashMap<>();
            for (int i = 0; i < names.size(); i++) {
                if (generated.get(i) != ABSENT) {
                    object.put(names.get(i), generated.get(i));
                }
            }
            return (Object) object;
        });
    }

    Arbitrary<String> user() {
        return Arbitraries.frequencyOf(Tuple.of(12, Arbitraries.of(users)), Tuple.of(1, Arbitraries.just(null)));
    }

    Arbitrary<Object> idempotencyKey() {
        return Arbitraries.frequencyOf(
                Tuple.of(8, Arbitraries.strings().withChars("0123456789abcdef").ofLength(32).map(key -> (Object) key)),
                Tuple.of(1, Arbitraries.just(null)),
                Tuple.of(1, Arbitraries.of("", "has space", "k".repeat(129), "semi;colon", "tab\there")));
    }

    private Arbitrary<Object> enumValue(JsonNode schema) {
        List<Object> valid = new ArrayList<>();
        schema.get("enum").values().forEach(value -> valid.add(value.asString()));
        return Arbitraries.frequencyOf(
                Tuple.of(8, Arbitraries.of(valid)),
                Tuple.of(1, Arbitraries.of(valid).map(value -> (Object) value.toString().toLowerCase(Locale.ROOT))),
                Tuple.of(1, Arbitraries.of("MAYBE", "", "APPROVE\u0000")),
                Tuple.of(1, wrongType()));
    }

    private Arbitrary<Object> knownStrings(String name) {
        String lower = name.toLowerCase(Locale.ROOT);
        if (lower.contains("user") || lower.contains("signer") || lower.equals("applicant")) {
            List<Object> names = new ArrayList<>(users);
            names.addAll(List.of("nobody", "ALICE", "alice "));
            return Arbitraries.of(names);
        }
        if (lower.contains("activity")) {
            return Arbitraries.of("managerApproval", "legalReview", "financeReview", "directorApproval", "start", "nowhere");
        }
        if (lower.contains("taskid")) {
            return taskId();
        }
        if (lower.equals("gtrid") || lower.equals("rawid") || lower.equals("resource") || lower.equals("cursor")) {
            return Arbitraries.of("lockstep-it.tm17000000000001", "business", "workflow", "eyJ4IjoxfQ", "AAAA", "-1");
        }
        return Arbitraries.of("Publish asset", "because the owner asked", "ok", "Ünïcödé 审批 ✓", "line one\nline two\ttab");
    }

    private Arbitrary<Object> boundaryStrings(JsonNode schema) {
        int max = schema.path("maxLength").asInt(4000);
        return Arbitraries.of("", " ", "\t", "x".repeat(max), "x".repeat(max + 1), "y".repeat(100_000));
    }

    Arbitrary<Object> ids(String name) {
        return Arbitraries.frequencyOf(
                Tuple.of(6, Arbitraries.integers().between(0, 1_000).map(i -> pick(applicationIds.get(), i, 1L))),
                Tuple.of(1, Arbitraries.of(999_999_999L, 0L, -7L)));
    }

    Arbitrary<Object> taskId() {
        return Arbitraries.frequencyOf(
                Tuple.of(6, Arbitraries.integers().between(0, 1_000).map(i -> pick(taskIds.get(), i, "no-such-task"))),
                Tuple.of(1, Arbitraries.of("00000000-0000-0000-0000-000000000000", "1", "-1", "..", "a/b", "x".repeat(300))),
                Tuple.of(1, Arbitraries.of(HOSTILE_STRINGS)));
    }

    private static Object pick(List<?> known, int index, Object fallback) {
        return known.isEmpty() ? fallback : known.get(index % known.size());
    }

    private static Arbitrary<Object> wrongType() {
        return Arbitraries.of(42L, true, new Json("[]"), new Json("{}"), new Json("null"), "text", new Json("\"\\ud800\""));
    }

    /** JSON text of a generated value; strings escape every control character and surrogate as {@code \\uXXXX}. */
    static String json(Object value) {
        if (value instanceof Json literal) {
            return literal.text();
        }
        if (value instanceof String text) {
            StringBuilder out = new StringBuilder("\"");
            for (char c : text.toCharArray()) {
                if (c == '"' || c == '\\') {
                    out.append('\\').append(c);
                } else if (c < 0x20 || (c >= 0x7f && c <= 0x9f) || Character.isSurrogate(c)) {
                    out.append(String.format("\\u%04x", (int) c));
                } else {
                    out.append(c);
                }
            }
            return out.append('"').toString();
        }
        if (value instanceof List<?> list) {
            return "[" + String.join(",", list.stream().map(GeneratedValues::json).toList()) + "]";
        }
        if (value instanceof Map<?, ?> map) {
            List<String> members = new ArrayList<>();
            map.forEach((key, member) -> members.add(json(key) + ":" + json(member)));
            return "{" + String.join(",", members) + "}";
        }
        return Objects.toString(value);
    }

    /** A value as it appears in a query string or path segment. */
    static String text(Object value) {
        if (value instanceof Json literal) {
            return literal.text();
        }
        return value instanceof List<?> list ? String.join(",", list.stream().map(GeneratedValues::text).toList())
                : Objects.toString(value);
    }
}
