package dev.lockstep.transactions.monitoring;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The health endpoint is open to anyone: a password inside a JDBC URL must not reach it. */
class XaResourceHealthIndicatorTest {

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "jdbc:postgresql://db1:5432/biz?user=app&password=s3cret&ssl=true | jdbc:postgresql://db1:5432/biz?user=app&password=******&ssl=true",
            "jdbc:postgresql://db1:5432/biz?PASSWORD=s3cret                     | jdbc:postgresql://db1:5432/biz?PASSWORD=******",
            "jdbc:oracle:thin:scott/tiger@//db3:1521/FREEPDB1                   | jdbc:oracle:thin:scott/******@//db3:1521/FREEPDB1",
            "jdbc:oracle:thin:@//db3:1521/FREEPDB1                              | jdbc:oracle:thin:@//db3:1521/FREEPDB1",
            "jdbc:postgresql://localhost:15432/lockstep_business?user=postgres  | jdbc:postgresql://localhost:15432/lockstep_business?user=postgres"})
    void masksPasswordsInJdbcUrls(String url, String shown) {
        assertThat(XaResourceHealthIndicator.withoutPassword(url)).isEqualTo(shown);
    }
}
