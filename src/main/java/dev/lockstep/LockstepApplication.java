package dev.lockstep;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;

@SpringBootApplication
public class LockstepApplication {

    public static void main(String[] args) {
        SpringApplication.run(LockstepApplication.class, args);
    }
}
