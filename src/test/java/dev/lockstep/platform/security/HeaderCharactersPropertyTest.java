package dev.lockstep.platform.security;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.regex.Pattern;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * {@link HeaderCharacters} lets through exactly what Spring Security's firewall's own expressions do (copied here from
 * {@code StrictHttpFirewall} 7.1 as the specification), on strings of any UTF-16 code units: controls, tabs,
 * unassigned code points, supplementary characters and lone surrogates.
 */
class HeaderCharactersPropertyTest {

    private static final Pattern NAME = Pattern.compile("[\\p{IsAssigned}&&[^\\p{IsControl}]]*");
    private static final Pattern VALUE = Pattern.compile("[\\p{IsAssigned}&&[[^\\p{IsControl}]||\\t]]*");

    @Property(tries = 5000)
    void namesAsTheFirewallsExpression(@ForAll("headerText") String text) {
        assertThat(HeaderCharacters.allowedName(text)).as("%s", codeUnits(text)).isEqualTo(NAME.matcher(text).matches());
    }

    @Property(tries = 5000)
    void valuesAsTheFirewallsExpression(@ForAll("headerText") String text) {
        assertThat(HeaderCharacters.allowedValue(text)).as("%s", codeUnits(text)).isEqualTo(VALUE.matcher(text).matches());
    }

    @Example
    void theCasesThatMatter() {
        assertThat(HeaderCharacters.allowedName("Authorization")).isTrue();
        assertThat(HeaderCharacters.allowedValue("Basic Ym9iOnBhc3N3b3Jk")).isTrue();
        assertThat(HeaderCharacters.allowedValue("a\tb")).isTrue();
        assertThat(HeaderCharacters.allowedName("a\tb")).isFalse();
        assertThat(HeaderCharacters.allowedValue("a\r\nSet-Cookie: x")).isFalse();
        assertThat(HeaderCharacters.allowedValue("\u0085")).isFalse();
        assertThat(HeaderCharacters.allowedValue("\u0378")).as("unassigned").isFalse();
        assertThat(HeaderCharacters.allowedValue("caf\u00e9 \ud83d\ude00")).isTrue();
    }

    /** Mostly printable ASCII, as headers are, mixed with code units from the whole range. */
    @Provide
    Arbitrary<String> headerText() {
        return Arbitraries.oneOf(Arbitraries.chars().range(' ', '~'), Arbitraries.chars().range('\u0000', '\u00ff'),
                        Arbitraries.chars().range('\u0000', '\uffff'), Arbitraries.of('\t', '\u007f', '\ud800', '\udfff'))
                .list().ofMaxSize(12).map(chars -> chars.stream().map(String::valueOf).reduce("", String::concat));
    }

    private static String codeUnits(String text) {
        return text.chars().mapToObj(unit -> String.format("U+%04X", unit)).toList().toString();
    }
}
