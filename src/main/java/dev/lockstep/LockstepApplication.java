package dev.lockstep;

import dev.lockstep.platform.audit.evidence.BundleVerifier;
import java.time.Clock;
import java.util.List;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.annotation.Bean;

@SpringBootApplication
public class LockstepApplication {

    @Bean
    Clock clock() {
        return Clock.systemUTC();
    }

    /** {@code verify <bundle.zip>} checks an audit evidence bundle offline, without starting the service. */
    public static void main(String[] args) {
        if (args.length > 0 && args[0].equals("verify")) {
            System.exit(BundleVerifier.run(List.of(args).subList(1, args.length), System.out));
        }
        SpringApplication.run(LockstepApplication.class, args);
    }
}
