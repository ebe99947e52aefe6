package dev.lockstep.bench;

import static dev.lockstep.bench.TodoScaleBenchmark.count;
import static dev.lockstep.bench.TodoScaleBenchmark.execute;
import static dev.lockstep.bench.TodoScaleBenchmark.strings;

import java.net.http.HttpClient;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * Years of ended processes in the engine's history, seeded by SQL into the benchmark's throw-away
 * databases: the one place where ACT_* tables are written by SQL (EngineTablesTest). First the real
 * service runs a few applications of each shape to their end over HTTP (the templates); then every
 * history row of those processes (ACT_HI_PROCINST, _ACTINST, _TASKINST, _VARINST, _IDENTITYLINK, and the
 * ACT_GE_BYTEARRAY of a serialized variable) is copied {@code copies} times with {@code INSERT ... SELECT
 * generate_series}, and with them the business rows the done list and the application's trail read
 * (application, business_process_binding, approval_record, task_projection). A copy gets fresh ids (an
 * engine id x of copy n becomes {@code md5(x || '/' || n)} as a UUID, the same in both databases; a
 * business id i becomes {@code i + n * 1,000,000}) and every timestamp moved back by at least 181 days,
 * copy n further by n times a gap that spreads the copies over two years, so all of them are due for
 * archival (default min-age 180 days) and the oldest go first. Columns are read from the catalog, so
 * a column the engine or a migration adds is copied as it is.
 */
final class EndedHistorySeed {

    /** Rows of the engine's history, the ones the benchmark counts. */
    static final List<String> HISTORY_TABLES = List.of("act_hi_procinst", "act_hi_actinst", "act_hi_taskinst",
            "act_hi_varinst", "act_hi_identitylink");
    /** The tables history archival writes, in the business database. */
    static final List<String> ARCHIVE_TABLES = List.of("archived_process", "archived_activity", "archived_task",
            "archived_variable", "archived_identity_link");
    static final Duration BACK_DATED = Duration.ofDays(181);
    private static final long BUSINESS_ID_STRIDE = 1_000_000L;
    private static final Duration SPREAD = Duration.ofDays(730);
    private static final int COPIES_PER_STATEMENT = 5_000;

    /** A shape of ended process: the shipped definitions' usual ends. */
    record Template(String shape, String createBody, String decision, List<String> deciders, String endStatus) {
    }

    static final List<Template> TEMPLATES = List.of(
            new Template("low risk, approved by manager and director", application("LOW", ""), "APPROVE",
                    List.of("bob", "frank"), "APPROVED"),
            new Template("high risk, approved by manager, legal, finance and director", application("HIGH", ""), "APPROVE",
                    List.of("bob", "carol", "dave", "frank"), "APPROVED"),
            new Template("low risk, rejected by the manager", application("LOW", ""), "REJECT", List.of("bob"), "REJECTED"),
            new Template("countersign ALL by three signers", application("HIGH",
                    ", \"countersign\": {\"signers\": [\"bob\", \"carol\", \"dave\"], \"policy\": \"ALL\"}"), "APPROVE",
                    List.of("bob", "carol", "dave"), "APPROVED"));

    /**
     * {@code templateRows}: history rows of one set of templates, by shape; {@code historyRows}: ACT_HI_* rows
     * the copies added (counted with SQL before and after); {@code businessRows}: business rows they added.
     */
    record Result(Map<String, Long> templateRows, long copies, long historyRows, long processes, long businessRows,
            double seconds) {
    }

    /** Column treatments; a column not named keeps the template's value, a timestamp column is moved back. */
    private enum Copy { ENGINE_ID, BUSINESS_ID, BUSINESS_ID_AS_TEXT }

    private EndedHistorySeed() {
    }

    /** Seeds at least {@code historyRows} ACT_HI_* rows (whole copies of the template set) into {@code service}'s databases. */
    static Result seed(ServiceUnderTest service, long historyRows) throws Exception {
        ApprovalCycleClient client = new ApprovalCycleClient(HttpClient.newHttpClient(), service.baseUrl());
        List<Long> applications = new ArrayList<>();
        for (Template template : TEMPLATES) {
            ApprovalCycleClient.Ended ended = client.runToEnd(template.createBody(), template.decision(), template.deciders());
            if (!ended.approvalStatus().equals(template.endStatus())) {
                throw new IllegalStateException(template.shape() + ": application " + ended.applicationId() + " ended "
                        + ended.approvalStatus());
            }
            applications.add(ended.applicationId());
        }
        try (Connection workflow = DriverManager.getConnection(service.jdbcUrls.get("lockstep_workflow"), "postgres", "");
                Connection business = DriverManager.getConnection(service.jdbcUrls.get("lockstep_business"), "postgres", "")) {
            awaitPublished(business, applications);
            long start = System.nanoTime();
            if (count(business, "select max(id) from application") >= BUSINESS_ID_STRIDE) {
                throw new IllegalStateException("application ids reach " + BUSINESS_ID_STRIDE + ": copies would collide");
            }
            String applicationIds = applications.stream().map(String::valueOf).collect(Collectors.joining(", "));
            String businessKeys = applications.stream().map(id -> "'" + id + "'").collect(Collectors.joining(", "));
            String processes = quoted(strings(workflow, "select id_ from act_hi_procinst where end_time_ is not null"
                    + " and business_key_ in (" + businessKeys + ")"));
            String tasks = quoted(strings(workflow, "select id_ from act_hi_taskinst where proc_inst_id_ in (" + processes + ")"));
            String byteArrays = quoted(strings(workflow, "select bytearray_id_ from act_hi_varinst where proc_inst_id_ in ("
                    + processes + ") and bytearray_id_ is not null"));
            Map<String, String> historyTemplates = new LinkedHashMap<>();
            historyTemplates.put("act_ge_bytearray", "id_ in (" + byteArrays + ")");
            historyTemplates.put("act_hi_procinst", "id_ in (" + processes + ")");
            historyTemplates.put("act_hi_actinst", "proc_inst_id_ in (" + processes + ")");
            historyTemplates.put("act_hi_taskinst", "proc_inst_id_ in (" + processes + ")");
            historyTemplates.put("act_hi_varinst", "proc_inst_id_ in (" + processes + ")");
            historyTemplates.put("act_hi_identitylink", "proc_inst_id_ in (" + processes + ") or task_id_ in (" + tasks + ")");
            Map<String, String> businessTemplates = new LinkedHashMap<>();
            businessTemplates.put("application", "id in (" + applicationIds + ")");
            businessTemplates.put("business_process_binding", "business_type = 'APPLICATION' and business_id in (" + businessKeys + ")");
            businessTemplates.put("approval_record", "application_id in (" + applicationIds + ")");
            businessTemplates.put("task_projection", "application_id in (" + applicationIds + ")");

            Map<String, Long> templateRows = templateRowsByShape(workflow, applications);
            long rowsPerCopy = templateRows.values().stream().mapToLong(Long::longValue).sum();
            long copies = Math.max(1, (historyRows + rowsPerCopy - 1) / rowsPerCopy);
            long gapSeconds = Math.max(1, SPREAD.toSeconds() / copies);
            long historyBefore = historyRows(workflow);
            long businessBefore = businessRows(business, businessTemplates.keySet());
            for (long from = 1; from <= copies; from += COPIES_PER_STATEMENT) {
                long to = Math.min(copies, from + COPIES_PER_STATEMENT - 1);
                for (Map.Entry<String, String> table : historyTemplates.entrySet()) {
                    replicate(workflow, table.getKey(), table.getValue(), HISTORY_COPIES, from, to, gapSeconds);
                }
                for (Map.Entry<String, String> table : businessTemplates.entrySet()) {
                    replicate(business, table.getKey(), table.getValue(), BUSINESS_COPIES, from, to, gapSeconds);
                }
                System.out.printf("history seed: copies %,d-%,d of %,d written%n", from, to, copies);
            }
            for (String table : historyTemplates.keySet()) {
                execute(workflow, "vacuum analyze " + table);
            }
            for (String table : businessTemplates.keySet()) {
                execute(business, "vacuum analyze " + table);
            }
            return new Result(templateRows, copies, historyRows(workflow) - historyBefore,
                    dueProcesses(workflow), businessRows(business, businessTemplates.keySet()) - businessBefore,
                    (System.nanoTime() - start) / 1e9);
        }
    }

    private static final Map<String, Copy> HISTORY_COPIES = Map.ofEntries(Map.entry("id_", Copy.ENGINE_ID),
            Map.entry("proc_inst_id_", Copy.ENGINE_ID), Map.entry("execution_id_", Copy.ENGINE_ID),
            Map.entry("task_id_", Copy.ENGINE_ID), Map.entry("parent_task_id_", Copy.ENGINE_ID),
            Map.entry("call_proc_inst_id_", Copy.ENGINE_ID), Map.entry("super_process_instance_id_", Copy.ENGINE_ID),
            Map.entry("bytearray_id_", Copy.ENGINE_ID), Map.entry("business_key_", Copy.BUSINESS_ID_AS_TEXT));
    private static final Map<String, Copy> BUSINESS_COPIES = Map.of("id", Copy.BUSINESS_ID,
            "application_id", Copy.BUSINESS_ID, "business_id", Copy.BUSINESS_ID_AS_TEXT,
            "process_instance_id", Copy.ENGINE_ID, "task_id", Copy.ENGINE_ID, "request_id", Copy.ENGINE_ID);

    /** Copies {@code from..to} of the template rows of {@code table}, each column as {@code treatments} says. */
    private static void replicate(Connection db, String table, String templateRows, Map<String, Copy> treatments, long from,
            long to, long gapSeconds) throws SQLException {
        List<String> columns = new ArrayList<>();
        List<String> values = new ArrayList<>();
        try (PreparedStatement statement = db.prepareStatement("select column_name, data_type from information_schema.columns"
                + " where table_schema = 'public' and table_name = ? order by ordinal_position")) {
            statement.setString(1, table);
            try (ResultSet rows = statement.executeQuery()) {
                while (rows.next()) {
                    String column = rows.getString(1);
                    columns.add(column);
                    Copy treatment = treatments.get(column);
                    String value = "t." + column;
                    values.add(treatment == null ? rows.getString(2).startsWith("timestamp")
                            ? value + " - (" + BACK_DATED.toSeconds() + " + n * " + gapSeconds + ") * interval '1 second'" : value
                            : switch (treatment) {
                                case ENGINE_ID -> "md5(" + value + " || '/' || n)::uuid::text";
                                case BUSINESS_ID -> value + " + n * " + BUSINESS_ID_STRIDE;
                                case BUSINESS_ID_AS_TEXT -> "(" + value + "::bigint + n * " + BUSINESS_ID_STRIDE + ")::text";
                            });
                }
            }
        }
        execute(db, "insert into " + table + " (" + String.join(", ", columns) + ") select " + String.join(", ", values)
                + " from " + table + " t cross join generate_series(" + from + "::bigint, " + to + ") n where " + templateRows);
    }

    /** History rows of each template process, by its shape. */
    private static Map<String, Long> templateRowsByShape(Connection workflow, List<Long> applications) throws SQLException {
        Map<String, Long> rows = new LinkedHashMap<>();
        for (int i = 0; i < TEMPLATES.size(); i++) {
            String process = "(select id_ from act_hi_procinst where business_key_ = '" + applications.get(i) + "')";
            rows.put(TEMPLATES.get(i).shape(), count(workflow, "select (select count(*) from act_hi_procinst where id_ in " + process
                    + ") + (select count(*) from act_hi_actinst where proc_inst_id_ in " + process
                    + ") + (select count(*) from act_hi_taskinst where proc_inst_id_ in " + process
                    + ") + (select count(*) from act_hi_varinst where proc_inst_id_ in " + process
                    + ") + (select count(*) from act_hi_identitylink where proc_inst_id_ in " + process
                    + " or task_id_ in (select id_ from act_hi_taskinst where proc_inst_id_ in " + process + "))"));
        }
        return rows;
    }

    /** All ACT_HI_* rows the benchmark counts, with plain SQL. */
    static long historyRows(Connection workflow) throws SQLException {
        return sumOfCounts(workflow, HISTORY_TABLES);
    }

    /** Ended processes still in the engine's history that are due for archival at the default min-age. */
    static long dueProcesses(Connection workflow) throws SQLException {
        return count(workflow, "select count(*) from act_hi_procinst where end_time_ < now() - interval '180 days'");
    }

    static long sumOfCounts(Connection db, Iterable<String> tables) throws SQLException {
        List<String> counts = new ArrayList<>();
        tables.forEach(table -> counts.add("(select count(*) from " + table + ")"));
        return count(db, "select " + String.join(" + ", counts));
    }

    private static long businessRows(Connection business, Iterable<String> tables) throws SQLException {
        return sumOfCounts(business, tables);
    }

    /** Waits until the approved templates are published, so the copies are of finished applications. */
    private static void awaitPublished(Connection business, List<Long> applications) throws SQLException {
        Instant deadline = Instant.now().plus(Duration.ofMinutes(2));
        String ids = applications.stream().map(String::valueOf).collect(Collectors.joining(", "));
        while (count(business, "select count(*) from application where id in (" + ids + ")"
                + " and publish_status not in ('PUBLISHED', 'NOT_STARTED')") > 0) {
            if (Instant.now().isAfter(deadline)) {
                throw new IllegalStateException("template applications " + ids + " not published after 2 minutes");
            }
            ServiceUnderTest.sleep(Duration.ofMillis(200));
        }
    }

    private static String quoted(List<String> ids) {
        return ids.isEmpty() ? "null" : ids.stream().map(id -> "'" + id + "'").collect(Collectors.joining(", "));
    }

    private static String application(String risk, String more) {
        return "{\"title\": \"Benchmark asset\", \"assetId\": 42, \"amount\": 1200.50, \"riskLevel\": \"" + risk
                + "\", \"sensitive\": false" + more + "}";
    }
}
