package dev.lockstep.catalog;

import dev.lockstep.web.ApiException;
import java.time.Duration;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestHeader;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * The reference catalog's HTTP API. Publishing is idempotent by {@code Idempotency-Key} (the outbox
 * event id): the first call creates the publication ({@code 201}), a repeated one answers the same
 * publication ({@code 200}, {@code Idempotent-Replayed: true}) and changes nothing.
 */
@RestController
@ConditionalOnCatalog
@RequestMapping(path = "/catalog", produces = "application/json")
class CatalogController {

    private static final Logger log = LoggerFactory.getLogger(CatalogController.class);

    private final CatalogStore store;
    private final String token;
    private final Duration answerDelay;

    CatalogController(CatalogStore store, CatalogProperties properties) {
        this.store = store;
        this.token = properties.token();
        this.answerDelay = properties.answerDelay();
    }

    @PostMapping(path = "/publications", consumes = "application/json")
    ResponseEntity<Publication> publish(@RequestHeader(name = "Idempotency-Key", required = false) String eventId,
            @RequestHeader(name = "Authorization", required = false) String authorization,
            @RequestBody PublicationRequest request) {
        authorize(authorization);
        if (eventId == null || eventId.isBlank() || eventId.length() > 64) {
            throw ApiException.badRequest("IDEMPOTENCY_KEY_REQUIRED",
                    "Send the event id as the Idempotency-Key header (1 to 64 characters).");
        }
        if (request.eventId() != null && !request.eventId().equals(eventId)) {
            throw unprocessable("The body's eventId (" + request.eventId() + ") differs from the Idempotency-Key (" + eventId + ").");
        }
        if (request.assetId() == null || request.assetId() <= 0 || request.applicationId() == null
                || request.title() == null || request.title().isBlank() || request.title().length() > 200) {
            throw unprocessable("A publication needs a positive assetId, an applicationId and a title of 1 to 200 characters.");
        }
        CatalogStore.Applied applied = store.publish(eventId, request);
        holdAnswer(eventId);
        return applied.duplicate()
                ? ResponseEntity.ok().header("Idempotent-Replayed", "true").body(applied.publication())
                : ResponseEntity.status(HttpStatus.CREATED).body(applied.publication());
    }

    @GetMapping("/publications/{eventId}")
    Publication byEvent(@PathVariable String eventId,
            @RequestHeader(name = "Authorization", required = false) String authorization) {
        authorize(authorization);
        return store.byEvent(eventId).orElseThrow(() -> ApiException.notFound("CATALOG_EVENT_UNKNOWN",
                "The catalog has applied no event " + eventId + "."));
    }

    record AssetView(long assetId, List<Publication> publications) {
    }

    @GetMapping("/assets/{assetId}")
    AssetView byAsset(@PathVariable long assetId,
            @RequestHeader(name = "Authorization", required = false) String authorization) {
        authorize(authorization);
        List<Publication> publications = store.byAsset(assetId);
        if (publications.isEmpty()) {
            throw ApiException.notFound("CATALOG_ASSET_UNKNOWN", "The catalog holds no publication of asset " + assetId + ".");
        }
        return new AssetView(assetId, publications);
    }

    /**
     * Fault injection, off unless {@code lockstep.catalog.answer-delay} is set: the create has committed,
     * its answer comes late, so a caller with a shorter read timeout cannot know it was applied.
     */
    private void holdAnswer(String eventId) {
        if (answerDelay.isZero()) {
            return;
        }
        log.warn("holding the answer to event {} for {} after its commit (lockstep.catalog.answer-delay)", eventId, answerDelay);
        try {
            Thread.sleep(answerDelay.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void authorize(String authorization) {
        if (token != null && !token.isBlank() && !("Bearer " + token).equals(authorization)) {
            throw new ApiException(HttpStatus.UNAUTHORIZED, "CATALOG_UNAUTHORIZED",
                    "Send Authorization: Bearer <the catalog's lockstep.catalog.token>.");
        }
    }

    private static ApiException unprocessable(String detail) {
        return new ApiException(HttpStatus.UNPROCESSABLE_CONTENT, "CATALOG_PAYLOAD_INVALID", detail);
    }
}
