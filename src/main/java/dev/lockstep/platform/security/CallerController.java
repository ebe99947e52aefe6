package dev.lockstep.platform.security;

import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

/** Who the credentials belong to, as the use cases see it: lets a client or the console check a login. */
@RestController
class CallerController {

    @GetMapping("/api/me")
    Caller me() {
        return Caller.current();
    }
}
