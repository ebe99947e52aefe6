package dev.lockstep.architecture.oracleforms;

import java.util.List;
import org.springframework.jdbc.core.JdbcTemplate;

/** Fixture for OracleFormsTest: an upsert and a LIMIT outside any dialect, next to SQL both vendors accept. */
class PortableStore {

    private final JdbcTemplate jdbc;

    PortableStore(JdbcTemplate jdbc) {
        this.jdbc = jdbc;
    }

    void save(String key, String value) {
        jdbc.update("insert into t (k, v) values (?, ?) on conflict (k) do update set v = excluded.v", key, value);
    }

    List<String> page(String where, int size) {
        return jdbc.queryForList("select v from t where " + where + " order by k limit " + size, String.class);
    }

    List<String> portablePage(int size) {
        return jdbc.queryForList("select v from t order by k fetch first ? rows only", String.class, size);
    }
}
