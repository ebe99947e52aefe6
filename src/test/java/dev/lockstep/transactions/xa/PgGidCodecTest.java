package dev.lockstep.transactions.xa;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class PgGidCodecTest {

    @Test
    void decodesAnAtomikosGidAndNamesItsOwner() {
        DecodedXid xid = new DecodedXid(DecodedXid.ATOMIKOS_FORMAT_ID, bytes("lockstep-2.tm173291234567800042"),
                bytes("lockstep-2.tm57"));

        String gid = PgGidCodec.encode(xid);

        assertThat(gid).isEqualTo("1096044365_bG9ja3N0ZXAtMi50bTE3MzI5MTIzNDU2NzgwMDA0Mg==_bG9ja3N0ZXAtMi50bTU3");
        assertThat(PgGidCodec.decode(gid)).contains(xid);
        assertThat(xid.gtridText()).isEqualTo("lockstep-2.tm173291234567800042");
        assertThat(xid.ownerTm()).contains("lockstep-2.tm");
    }

    @Test
    void ownerIsTheWholeNameEvenWhenAnotherNameLooksLikeAPrefix() {
        DecodedXid node10 = new DecodedXid(DecodedXid.ATOMIKOS_FORMAT_ID, bytes("node10.tm1"), bytes("node10.tm3"));
        assertThat(node10.ownerTm()).contains("node10.tm");
    }

    @Test
    void gidsThatAreNotPgjdbcXidsStayUndecoded() {
        assertThat(PgGidCodec.decode("by-hand-transaction")).isEmpty();
        assertThat(PgGidCodec.decode("12_not*base64_x")).isEmpty();
        assertThat(PgGidCodec.decode("abc_YQ==_Yg==")).isEmpty();
    }

    @Test
    void foreignFormatIdsDecodeButHaveNoOwner() {
        DecodedXid foreign = PgGidCodec.decode("4660_AQID_BAU=").orElseThrow();
        assertThat(foreign.isAtomikos()).isFalse();
        assertThat(foreign.ownerTm()).isEmpty();
        assertThat(foreign.gtridText()).isEqualTo("0x010203");
    }

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.US_ASCII);
    }
}
