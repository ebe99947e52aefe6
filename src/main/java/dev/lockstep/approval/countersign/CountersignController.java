package dev.lockstep.approval.countersign;

import dev.lockstep.approval.ApplicationView;
import dev.lockstep.approval.handover.HandoverRequest;
import dev.lockstep.transactions.usecase.Target;
import dev.lockstep.transactions.usecase.UseCase;
import dev.lockstep.transactions.usecase.UseCaseResult;
import dev.lockstep.transactions.usecase.UseCaseTransaction;
import jakarta.validation.Valid;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestHeader;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;

/** 加签 / 减签 on an application's running countersign step. */
@RestController
@RequestMapping(path = "/api/applications/{id}/countersign/signers", produces = "application/json")
public class CountersignController {

    private final SignerChanges signers;
    private final UseCaseTransaction useCases;

    public CountersignController(SignerChanges signers, UseCaseTransaction useCases) {
        this.signers = signers;
        this.useCases = useCases;
    }

    @PostMapping(consumes = "application/json")
    public ResponseEntity<String> add(@PathVariable long id, @Valid @RequestBody HandoverRequest request,
            @RequestHeader(name = UseCaseTransaction.HEADER, required = false) String idempotencyKey) {
        return useCases.run(UseCase.ADD_SIGNER, Target.application(id), idempotencyKey, request,
                call -> result(signers.addSigner(id, request, call), UseCase.ADD_SIGNER));
    }

    @PostMapping(path = "/remove", consumes = "application/json")
    public ResponseEntity<String> remove(@PathVariable long id, @Valid @RequestBody HandoverRequest request,
            @RequestHeader(name = UseCaseTransaction.HEADER, required = false) String idempotencyKey) {
        return useCases.run(UseCase.REMOVE_SIGNER, Target.application(id), idempotencyKey, request,
                call -> result(signers.removeSigner(id, request, call), UseCase.REMOVE_SIGNER));
    }

    private static UseCaseResult result(ApplicationView application, UseCase useCase) {
        return UseCaseResult.ok(application, application.processInstanceId(), useCase.commandType());
    }
}
