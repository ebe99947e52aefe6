package dev.lockstep.platform.security;

import dev.lockstep.platform.StartupCheckFailure;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;
import org.springframework.security.core.userdetails.User;
import org.springframework.security.core.userdetails.UserDetails;

/**
 * Checks and converts {@code lockstep.security.users}. Every mistake stops the startup with the exact
 * setting ({@code lockstep.security.users[2].password}); a password is never echoed back.
 */
final class ConfiguredUsers {

    static final Set<String> KNOWN_ROLES = Set.of(Roles.APPLICANT, Roles.APPROVER, Roles.ADMIN, Roles.DBA, Roles.AUDITOR);
    static final Set<String> PASSWORD_ENCODINGS = Set.of("bcrypt", "noop");

    private static final Pattern ENCODED = Pattern.compile("\\{([^}]*)}(.*)", Pattern.DOTALL);
    private static final Pattern BCRYPT = Pattern.compile("\\$2[aby]?\\$\\d\\d\\$[./0-9A-Za-z]{53}");
    private static final String HOW_TO_ENCODE = "store an encoded password such as {bcrypt}$2a$10$... (generate it with"
            + " htpasswd -nbBC 10 '' 'the-password' | tr -d ':\\n'; quote it with single quotes in a shell or env file"
            + " so that '$' is kept), or {noop}the-password for a throwaway test setup.";

    private ConfiguredUsers() {
    }

    static List<UserDetails> from(List<LockstepSecurityProperties.User> users) {
        List<UserDetails> result = new ArrayList<>();
        Set<String> names = new HashSet<>();
        for (int i = 0; i < users.size(); i++) {
            LockstepSecurityProperties.User user = users.get(i);
            String setting = "lockstep.security.users[" + i + "]";
            if (user.name() == null || user.name().isBlank()) {
                throw new StartupCheckFailure(setting + ".name", "is empty.", "give every configured user a name.");
            }
            if (!names.add(user.name())) {
                throw new StartupCheckFailure(setting + ".name", "repeats the user '" + user.name() + "'.",
                        "configure each user once, with all its roles and groups.");
            }
            checkPassword(setting + ".password", user.password());
            List<String> authorities = new ArrayList<>();
            for (String role : user.roles()) {
                if (!KNOWN_ROLES.contains(role)) {
                    throw new StartupCheckFailure(setting + ".roles", "names the unknown role '" + role + "'.",
                            "use only " + String.join(", ", KNOWN_ROLES.stream().sorted().toList()) + " (upper case).");
                }
                authorities.add(Caller.ROLE_PREFIX + role);
            }
            if (authorities.isEmpty()) {
                throw new StartupCheckFailure(setting + ".roles", "is empty, so '" + user.name() + "' could do nothing.",
                        "give the user at least one role, e.g. " + setting + ".roles=APPROVER.");
            }
            user.groups().forEach(group -> authorities.add(Caller.GROUP_PREFIX + group));
            result.add(User.withUsername(user.name()).password(user.password())
                    .authorities(authorities.toArray(String[]::new)).build());
        }
        return result;
    }

    private static void checkPassword(String setting, String password) {
        var encoded = password == null ? null : ENCODED.matcher(password);
        if (encoded == null || !encoded.matches()) {
            throw new StartupCheckFailure(setting, "is not an encoded password (no {bcrypt}/{noop} prefix); plain-text"
                    + " passwords are refused.", HOW_TO_ENCODE);
        }
        if (!PASSWORD_ENCODINGS.contains(encoded.group(1))) {
            throw new StartupCheckFailure(setting, "uses the encoding {" + encoded.group(1) + "}, which Lockstep does not"
                    + " accept (only " + PASSWORD_ENCODINGS.stream().sorted().map(id -> "{" + id + "}").toList() + ").",
                    HOW_TO_ENCODE);
        }
        if (encoded.group(1).equals("bcrypt") && !BCRYPT.matcher(encoded.group(2)).matches()) {
            throw new StartupCheckFailure(setting, "starts with {bcrypt} but what follows is not a complete bcrypt hash"
                    + " (often a shell or env file ate the '$' parts).", HOW_TO_ENCODE);
        }
    }
}
