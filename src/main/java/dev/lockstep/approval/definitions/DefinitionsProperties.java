package dev.lockstep.approval.definitions;

import java.util.List;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * How uploaded approval definitions are checked (docs/approvals.md, "Business types, versions and four-eyes activation").
 *
 * @param maxBytes the largest BPMN document accepted; a larger upload is refused with 413 before it is parsed
 * @param groups the candidate groups a user task may name; defaults to the demo users' groups where they exist
 *     (embedded databases), and must be set with {@code lockstep.mode=external}
 */
@ConfigurationProperties("lockstep.definitions")
public record DefinitionsProperties(@DefaultValue("1048576") int maxBytes, List<String> groups) {
}
