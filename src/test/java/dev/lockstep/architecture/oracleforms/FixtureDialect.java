package dev.lockstep.architecture.oracleforms;

/** Fixture for OracleFormsTest: an upsert in its PostgreSQL form beside its Oracle form, and an Oracle form that is not one. */
enum FixtureDialect {

    POSTGRESQL {
        @Override
        String save() {
            return "insert into t (k, v) values (?, ?) on conflict (k) do update set v = excluded.v";
        }

        @Override
        String page() {
            return "select * from t order by k limit ?";
        }
    },

    ORACLE {
        @Override
        String save() {
            return "merge into t using (select ? k, ? v from dual) n on (t.k = n.k) when matched then update set t.v = n.v"
                    + " when not matched then insert (k, v) values (n.k, n.v)";
        }

        @Override
        String page() {
            return "select * from t order by k limit ?";
        }
    };

    abstract String save();

    abstract String page();
}
