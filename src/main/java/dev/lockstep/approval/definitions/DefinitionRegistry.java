package dev.lockstep.approval.definitions;

import dev.lockstep.approval.definitions.DefinitionsConfiguration.DefinitionLimits;
import dev.lockstep.platform.audit.AuditRecord;
import dev.lockstep.platform.audit.AuditTrail;
import dev.lockstep.platform.audit.AuditTrail.Chaining;
import dev.lockstep.platform.web.ApiException;
import dev.lockstep.transactions.monitoring.TransactionLogContext;
import dev.lockstep.transactions.workflow.Countersign;
import dev.lockstep.transactions.workflow.DeployedDefinitions;
import dev.lockstep.transactions.workflow.definition.BpmnDefinitions;
import dev.lockstep.transactions.workflow.definition.CountersignPolicy;
import dev.lockstep.transactions.workflow.definition.DeclarativeFlows;
import dev.lockstep.transactions.workflow.definition.DeclarativeFlows.Compilation;
import dev.lockstep.transactions.workflow.definition.DefinitionCheck;
import dev.lockstep.transactions.workflow.definition.DefinitionProblem;
import java.nio.charset.StandardCharsets;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Clock;
import java.time.Instant;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.dao.DuplicateKeyException;
import org.springframework.http.HttpStatus;
import org.springframework.jdbc.core.ConnectionCallback;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Component;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Business types and the versions of their approval definitions, as rows of the business database. Every
 * state change runs inside the caller's use case transaction and writes its audit entry on the same connection,
 * so the change and its entry commit together; activation also deploys into the engine in that transaction.
 * Four-eyes is a database constraint as well as a check here: nobody decides their own proposal.
 */
@Component
class DefinitionRegistry {

    /** The engine process key of a type's flows: an NCName that the built-in keys (lower camel case) never take. */
    static String processKey(String typeKey) {
        return "type_" + typeKey;
    }

    private static final Logger log = LoggerFactory.getLogger(DefinitionRegistry.class);

    private final JdbcTemplate jdbc;
    private final TransactionTemplate reads;
    private final TransactionTemplate writes;
    private final BpmnDefinitions checks;
    private final DeclarativeFlows declarative;
    private final DeployedDefinitions engine;
    private final DefinitionLimits limits;
    private final ObjectProvider<AuditTrail> audit;
    private final JsonMapper json;
    private final Clock clock;

    /**
     * {@code business}: the primary (XA, or single-database) pool, whose connection joins the use case's transaction;
     * it hands out connections only inside one, so reads run in a read-only transaction of {@code transactions} (or
     * join the use case's).
     */
    DefinitionRegistry(DataSource business, PlatformTransactionManager transactions, BpmnDefinitions checks,
            DeclarativeFlows declarative, DeployedDefinitions engine, DefinitionLimits limits, ObjectProvider<AuditTrail> audit, JsonMapper json, Clock clock) {
        this.jdbc = new JdbcTemplate(business);
        this.reads = new TransactionTemplate(transactions);
        this.reads.setReadOnly(true);
        this.writes = new TransactionTemplate(transactions);
        this.checks = checks;
        this.declarative = declarative;
        this.engine = engine;
        this.limits = limits;
        this.audit = audit;
        this.json = json;
        this.clock = clock;
    }

    BusinessTypeView register(RegisterBusinessTypeRequest request, String actor) {
        List<String> routable = List.copyOf(new LinkedHashSet<>(request.routableFields() == null ? List.of() : request.routableFields()));
        BusinessTypeSchemas.check(request.schema(), routable);
        BusinessTypeSchemas.checkAssetMapping(request.schema(), request.publishes(), request.assetMapping());
        if (type(request.key()).isPresent()) {
            throw businessTypeExists(request.key());
        }
        Instant now = clock.instant();
        try {
            jdbc.update("""
                    insert into business_type (type_key, name, json_schema, routable_fields, publishes, asset_mapping, built_in,
                                               registered_by, registered_at)
                    values (?, ?, ?, ?, ?, ?, ?, ?, ?)""", request.key(), request.name(), json.writeValueAsString(request.schema()),
                    json.writeValueAsString(routable), request.publishes(),
                    request.assetMapping() == null || request.assetMapping().isNull() ? null : json.writeValueAsString(request.assetMapping()),
                    false, actor, Timestamp.from(now));
        } catch (DuplicateKeyException e) {
            throw businessTypeExists(request.key());
        }
        audit(now, actor, "BUSINESS_TYPE_REGISTERED", null, "business type " + request.key() + " registered (routable fields "
                + routable + ", publishes " + request.publishes() + ")");
        return type(request.key()).orElseThrow();
    }

    List<BusinessTypeView> types() {
        return reads.execute(status -> jdbc.query("select * from business_type order by type_key", this::typeView));
    }

    Optional<BusinessTypeView> type(String key) {
        return reads.execute(status -> jdbc.query("select * from business_type where type_key = ?", this::typeView, key).stream()
                .findFirst());
    }

    /** A declarative document, kept with the BPMN it became. */
    record DeclarativeSource(byte[] document, DeclarativeFlows.Format format) {

        String mediaType() {
            return format == DeclarativeFlows.Format.JSON ? "application/json" : "application/yaml";
        }
    }

    /**
     * Checks {@code xml} against the type's rules and stores it as the type's next version, PROPOSED, with its
     * activation request. Proposals of one type queue on its row, so versions are numbered 1, 2, 3... without gaps.
     */
    DefinitionVersionView propose(String key, byte[] xml, String actor) {
        return propose(key, xml, null, actor);
    }

    /** Compiles the declarative document to BPMN, which is then checked and stored like an uploaded one. */
    DefinitionVersionView propose(String key, DeclarativeSource source, String actor) {
        uploadable(key);
        Compilation compilation = declarative.compile(source.document(), source.format());
        if (compilation instanceof Compilation.Refused refused) {
            throw refusal(key, actor, refused.problems());
        }
        return propose(key, ((Compilation.Compiled) compilation).bpmnXml(), source, actor);
    }

    private DefinitionVersionView propose(String key, byte[] xml, DeclarativeSource source, String actor) {
        BusinessTypeView type = uploadable(key);
        String processKey = processKey(key);
        DefinitionCheck check = checks.check(xml, limits.rulesFor(new LinkedHashSet<>(type.routableFields())), processKey);
        if (check instanceof DefinitionCheck.Refused refused) {
            throw refusal(key, actor, refused.problems());
        }
        DefinitionCheck.Accepted accepted = (DefinitionCheck.Accepted) check;
        CountersignPolicy countersign = accepted.countersign();
        int version = jdbc.queryForObject("select coalesce(max(version), 0) + 1 from definition_version where type_key = ?",
                Integer.class, key);
        Instant now = clock.instant();
        jdbc.update("""
                insert into definition_version (type_key, version, state, process_key, name, source_xml, deployable_xml,
                                                user_task_ids, declarative_source, declarative_media_type, countersign_policy,
                                                countersign_ratio, proposed_by, proposed_at)
                values (?, ?, 'PROPOSED', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)""", key, version, accepted.processKey(), accepted.name(),
                new String(xml, StandardCharsets.UTF_8), new String(accepted.deployableXml(), StandardCharsets.UTF_8),
                json.writeValueAsString(accepted.userTaskIds()),
                source == null ? null : new String(source.document(), StandardCharsets.UTF_8), source == null ? null : source.mediaType(),
                countersign == null ? null : countersign.policy().name(), countersign == null ? null : countersign.ratio(),
                actor, Timestamp.from(now));
        openChange(key, version, actor, now);
        audit(now, actor, "DEFINITION_PROPOSED", key + " v" + version, key + " v" + version + " proposed (process " + accepted.processKey()
                + ", steps " + accepted.userTaskIds() + (countersign == null ? "" : ", countersign " + describe(countersign))
                + (source == null ? "" : ", compiled from " + source.format()) + ")");
        return version(key, version).orElseThrow();
    }

    /** The type, locked; its built-in flows cannot be replaced by an upload nor re-activated by hand. */
    private BusinessTypeView uploadable(String key) {
        BusinessTypeView type = lockType(key);
        if (type.builtIn()) {
            throw ApiException.conflict("BUILT_IN_TYPE", "The flows of business type " + key + " are built into the product;"
                    + " their versions follow its releases, and definitions cannot be uploaded or activated for it.");
        }
        return type;
    }

    /** Who records the built-in flows' versions, in the rows and the audit trail: the product, not a person. */
    static final String PRODUCT = "lockstep";

    /**
     * Records each engine version of the built-in flows not recorded yet as the next version of the built-in type: the
     * newest of each process key ACTIVE, an older one RETIRED, with an audit entry each, in one transaction. Runs at
     * every start; a release that changes a built-in flow's XML makes the engine deploy a new version, recorded at that
     * start. It takes no lock on the type's row: a transaction left in doubt that inserted an application holds a key
     * share on it, and a start must never wait for the in-doubt work its console is there to resolve. When nothing is
     * new it only reads. Nodes starting together number the same next version, and the primary key lets one of them
     * record it; the other's transaction rolls back.
     */
    void recordBuiltInFlows(List<DeployedDefinitions.BuiltInDefinition> deployed) {
        try {
            writes.executeWithoutResult(status -> recordNewBuiltInFlows(deployed));
        } catch (DuplicateKeyException e) {
            log.info("built-in flow versions were recorded by another node starting at the same time");
        }
    }

    private void recordNewBuiltInFlows(List<DeployedDefinitions.BuiltInDefinition> deployed) {
        Map<String, Integer> newest = new HashMap<>();
        deployed.forEach(flow -> newest.merge(flow.processKey(), flow.engineVersion(), Math::max));
        for (String key : jdbc.queryForList("select type_key from business_type where built_in = ? order by type_key",
                String.class, true)) {
            List<String> recorded = jdbc.queryForList("select engine_definition_id from definition_version where type_key = ?",
                    String.class, key);
            for (DeployedDefinitions.BuiltInDefinition flow : deployed) {
                if (!recorded.contains(flow.engineDefinitionId())) {
                    recordBuiltIn(key, flow, flow.engineVersion() == newest.get(flow.processKey()));
                }
            }
        }
    }

    private void recordBuiltIn(String key, DeployedDefinitions.BuiltInDefinition flow, boolean active) {
        Instant now = clock.instant();
        if (active) {
            jdbc.update("update definition_version set state = 'RETIRED' where type_key = ? and process_key = ? and state = 'ACTIVE'",
                    key, flow.processKey());
        }
        int version = jdbc.queryForObject("select coalesce(max(version), 0) + 1 from definition_version where type_key = ?",
                Integer.class, key);
        jdbc.update("""
                insert into definition_version (type_key, version, state, process_key, name, source_xml, deployable_xml,
                                                user_task_ids, engine_definition_id, proposed_by, proposed_at)
                values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)""", key, version, active ? "ACTIVE" : "RETIRED", flow.processKey(),
                flow.name(), flow.xml(), flow.xml(), json.writeValueAsString(flow.userTaskIds()), flow.engineDefinitionId(), PRODUCT,
                Timestamp.from(now));
        audit(now, PRODUCT, "DEFINITION_BUILT_IN_RECORDED", key + " v" + version, key + " v" + version + " recorded: built-in process "
                + flow.processKey() + " (engine definition " + flow.engineDefinitionId() + ", steps " + flow.userTaskIds() + "), "
                + (active ? "ACTIVE" : "RETIRED"));
        log.info("{} v{}: built-in process {} recorded ({})", key, version, flow.engineDefinitionId(), active ? "ACTIVE" : "RETIRED");
    }

    private static ApiException refusal(String key, String actor, List<DefinitionProblem> problems) {
        log.info("definition for {} proposed by {} refused: {}", key, actor, problems.stream().map(DefinitionProblem::code).distinct().toList());
        return new ApiException(HttpStatus.UNPROCESSABLE_CONTENT, "DEFINITION_INVALID",
                "The definition was refused; nothing was stored. Each problem names its BPMN element, or the JSON pointer"
                        + " of the declarative document's member.").with("problems", problems);
    }

    /** Asks for a RETIRED version to become ACTIVE again; another admin approves it like a new version. */
    DefinitionVersionView proposeActivation(String key, int version, String actor) {
        uploadable(key);
        DefinitionVersionView existing = version(key, version).orElseThrow(() -> versionNotFound(key, version));
        if (!"RETIRED".equals(existing.state())) {
            throw ApiException.conflict("VERSION_NOT_RETIRED", key + " v" + version + " is " + existing.state()
                    + "; only a RETIRED version can be proposed for activation again.");
        }
        if (existing.openChange() != null) {
            throw ApiException.conflict("PROPOSAL_OPEN", key + " v" + version + " already has an open proposal.");
        }
        Instant now = clock.instant();
        openChange(key, version, actor, now);
        audit(now, actor, "DEFINITION_REACTIVATION_PROPOSED", key + " v" + version, key + " v" + version + " proposed for activation again");
        return version(key, version).orElseThrow();
    }

    /**
     * The second admin's approval of the open proposal on {@code version}: deploys it into the engine unless it was
     * deployed before (a re-activation), retires the ACTIVE version and makes this one ACTIVE. Activations of one
     * type queue on its row; the one-ACTIVE-per-type index stands behind that.
     */
    DefinitionVersionView approve(String key, int version, String actor) {
        lockType(key);
        Change change = openChangeFor(key, version, actor);
        Map<String, Object> row = jdbc.queryForMap("""
                select process_key, deployable_xml, engine_definition_id from definition_version
                where type_key = ? and version = ?""", key, version);
        String engineDefinitionId = (String) row.get("engine_definition_id");
        if (engineDefinitionId == null) {
            engineDefinitionId = engine.deploy((String) row.get("process_key"), key + " v" + version,
                    ((String) row.get("deployable_xml")).getBytes(StandardCharsets.UTF_8));
        }
        Instant now = clock.instant();
        List<Integer> retired = jdbc.queryForList("select version from definition_version where type_key = ? and state = 'ACTIVE'",
                Integer.class, key);
        jdbc.update("update definition_version set state = 'RETIRED' where type_key = ? and state = 'ACTIVE'", key);
        try {
            jdbc.update("""
                    update definition_version set state = 'ACTIVE', engine_definition_id = ?,
                           decided_by = coalesce(decided_by, ?), decided_at = coalesce(decided_at, ?)
                    where type_key = ? and version = ?""", engineDefinitionId, actor, Timestamp.from(now), key, version);
        } catch (DuplicateKeyException e) {
            throw ApiException.conflict("ACTIVATION_CONFLICT", "Another version of " + key
                    + " was activated at the same time; reload and decide again.");
        }
        decide(change, "APPROVED", actor, now);
        audit(now, actor, "DEFINITION_ACTIVATED", key + " v" + version, key + " v" + version + " activated (engine definition " + engineDefinitionId
                + ", proposed by " + change.proposedBy() + ")" + (retired.isEmpty() ? "" : "; v" + retired.get(0) + " retired"));
        return version(key, version).orElseThrow();
    }

    /** The second admin's refusal of the open proposal: a new version becomes REJECTED, a RETIRED one stays RETIRED. */
    DefinitionVersionView reject(String key, int version, String actor) {
        lockType(key);
        Change change = openChangeFor(key, version, actor);
        Instant now = clock.instant();
        jdbc.update("""
                update definition_version set state = 'REJECTED', decided_by = ?, decided_at = ?
                where type_key = ? and version = ? and state = 'PROPOSED'""", actor, Timestamp.from(now), key, version);
        decide(change, "REJECTED", actor, now);
        audit(now, actor, "DEFINITION_REJECTED", key + " v" + version, key + " v" + version + " activation rejected (proposed by "
                + change.proposedBy() + ")");
        return version(key, version).orElseThrow();
    }

    List<DefinitionVersionView> versions(String key) {
        return reads.execute(status -> jdbc.query(VERSION_SELECT + " where v.type_key = ? order by v.version", this::versionView, key));
    }

    Optional<DefinitionVersionView> version(String key, int version) {
        return reads.execute(status -> jdbc.query(VERSION_SELECT + " where v.type_key = ? and v.version = ?", this::versionView, key,
                version).stream().findFirst());
    }

    /** The ACTIVE version of {@code key}: one row, and no engine query, as every typed submission asks for it. */
    Optional<ActiveVersion> active(String key) {
        return reads.execute(status -> jdbc.query("select version, engine_definition_id, countersign_policy, countersign_ratio"
                + " from definition_version where type_key = ? and state = 'ACTIVE'", (rs, n) -> new ActiveVersion(rs.getInt("version"),
                rs.getString("engine_definition_id"), countersign(rs)), key).stream().findFirst());
    }

    /** {@code countersign}: the policy of its countersign step, null without one. */
    record ActiveVersion(int version, String engineDefinitionId, CountersignPolicy countersign) {
    }

    private static CountersignPolicy countersign(ResultSet rs) throws SQLException {
        String policy = rs.getString("countersign_policy");
        return policy == null ? null : new CountersignPolicy(Countersign.Policy.valueOf(policy), rs.getBigDecimal("countersign_ratio"));
    }

    private static String describe(CountersignPolicy countersign) {
        return countersign.policy() + (countersign.ratio() == null ? "" : " " + countersign.ratio().toPlainString());
    }

    Optional<String> deployableXml(String key, int version) {
        return reads.execute(status -> jdbc.queryForList("select deployable_xml from definition_version where type_key = ? and version = ?",
                String.class, key, version).stream().findFirst());
    }

    record UploadedSource(String mediaType, String text) {
    }

    /** The document as it was uploaded: the declarative source with its media type, or the BPMN XML. */
    Optional<UploadedSource> uploadedSource(String key, int version) {
        return reads.execute(status -> jdbc.query("""
                select source_xml, declarative_source, declarative_media_type from definition_version
                where type_key = ? and version = ?""", (rs, n) -> rs.getString("declarative_source") == null
                ? new UploadedSource("application/xml", rs.getString("source_xml"))
                : new UploadedSource(rs.getString("declarative_media_type"), rs.getString("declarative_source")), key, version)
                .stream().findFirst());
    }

    private static final String VERSION_SELECT = """
            select v.type_key, v.version, v.state, v.process_key, v.name, v.user_task_ids, v.engine_definition_id,
                   v.countersign_policy, v.countersign_ratio, v.proposed_by, v.proposed_at, v.decided_by, v.decided_at,
                   c.id as change_id, c.action as change_action, c.proposed_by as change_proposed_by, c.proposed_at as change_proposed_at
            from definition_version v
            left join definition_change c on c.type_key = v.type_key and c.version = v.version and c.state = 'PROPOSED'""";

    private BusinessTypeView lockType(String key) {
        return jdbc.query("select * from business_type where type_key = ? for update", this::typeView, key).stream().findFirst()
                .orElseThrow(() -> ApiException.notFound("BUSINESS_TYPE_NOT_FOUND", "There is no business type " + key + "."));
    }

    private void openChange(String key, int version, String actor, Instant now) {
        jdbc.update("""
                insert into definition_change (type_key, version, action, state, proposed_by, proposed_at)
                values (?, ?, 'ACTIVATE', 'PROPOSED', ?, ?)""", key, version, actor, Timestamp.from(now));
    }

    private record Change(long id, String proposedBy) {
    }

    /** The open proposal on the version, which {@code actor} may decide only if someone else made it. */
    private Change openChangeFor(String key, int version, String actor) {
        version(key, version).orElseThrow(() -> versionNotFound(key, version));
        Change change = jdbc.query("""
                select id, proposed_by from definition_change
                where type_key = ? and version = ? and state = 'PROPOSED' for update""",
                (rs, n) -> new Change(rs.getLong("id"), rs.getString("proposed_by")), key, version).stream().findFirst()
                .orElseThrow(() -> ApiException.conflict("NO_OPEN_PROPOSAL", key + " v" + version
                        + " has no open proposal to decide."));
        if (change.proposedBy().equals(actor)) {
            throw ApiException.forbidden("FOUR_EYES_REQUIRED", "You proposed " + key + " v" + version
                    + "; another administrator must decide on it.");
        }
        return change;
    }

    private void decide(Change change, String state, String actor, Instant now) {
        jdbc.update("update definition_change set state = ?, decided_by = ?, decided_at = ? where id = ?", state, actor,
                Timestamp.from(now), change.id());
    }

    /** On the connection of this transaction's business branch: the entry commits or rolls back with the change. */
    private void audit(Instant now, String actor, String action, String definitionVersion, String detail) {
        AuditRecord record = new AuditRecord(actor, AuditRecord.rolesOf(actor), action, null, null, definitionVersion, null,
                TransactionLogContext.currentGtrid(), detail);
        jdbc.execute((ConnectionCallback<Void>) connection -> {
            AuditTrail.appendWithin(audit.getIfAvailable(), connection, now, record, Chaining.AFTER_COMMIT);
            return null;
        });
    }

    private BusinessTypeView typeView(ResultSet rs, int row) throws SQLException {
        String assetMapping = rs.getString("asset_mapping");
        return new BusinessTypeView(rs.getString("type_key"), rs.getString("name"), json.readTree(rs.getString("json_schema")),
                List.of(json.readValue(rs.getString("routable_fields"), String[].class)), rs.getBoolean("publishes"),
                assetMapping == null ? null : json.readTree(assetMapping), rs.getBoolean("built_in"), rs.getString("registered_by"),
                rs.getTimestamp("registered_at").toInstant());
    }

    private DefinitionVersionView versionView(ResultSet rs, int row) throws SQLException {
        String engineDefinitionId = rs.getString("engine_definition_id");
        Timestamp decidedAt = rs.getTimestamp("decided_at");
        long changeId = rs.getLong("change_id");
        DefinitionVersionView.OpenChange open = rs.wasNull() ? null : new DefinitionVersionView.OpenChange(changeId,
                rs.getString("change_action"), rs.getString("change_proposed_by"), rs.getTimestamp("change_proposed_at").toInstant());
        return new DefinitionVersionView(rs.getString("type_key"), rs.getInt("version"), rs.getString("state"),
                rs.getString("process_key"), rs.getString("name"), List.of(json.readValue(rs.getString("user_task_ids"), String[].class)),
                countersign(rs), engineDefinitionId, engineDefinitionId == null ? null : engine.running(engineDefinitionId),
                rs.getString("proposed_by"), rs.getTimestamp("proposed_at").toInstant(), rs.getString("decided_by"),
                decidedAt == null ? null : decidedAt.toInstant(), open);
    }

    private static ApiException businessTypeExists(String key) {
        return ApiException.conflict("BUSINESS_TYPE_EXISTS", "Business type " + key + " is already registered.");
    }

    private static ApiException versionNotFound(String key, int version) {
        return ApiException.notFound("DEFINITION_VERSION_NOT_FOUND", key + " has no definition version " + version + ".");
    }
}
