package dev.lockstep.publishing.catalog;

import dev.lockstep.platform.web.ApiException;
import dev.lockstep.publishing.delivery.PayloadDigest;
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
import tools.jackson.core.JacksonException;
import tools.jackson.databind.json.JsonMapper;

/**
 * The reference catalog's HTTP API, for callers presenting the {@link CatalogCredential}. Publishing is idempotent by
 * {@code Idempotency-Key} (the outbox event id): the first call creates the publication ({@code 201}), a repeated one
 * with the same body answers the same publication ({@code 200}, {@code Idempotent-Replayed: true}) and changes
 * nothing; the same key with another body is refused ({@code 422 IDEMPOTENCY_KEY_REUSED}), never answered as a replay.
 */
@RestController
@ConditionalOnCatalog
@RequestMapping(path = "/catalog", produces = "application/json")
class CatalogController {

    private static final Logger log = LoggerFactory.getLogger(CatalogController.class);

    private final JsonMapper json = JsonMapper.builder().build();
    private final CatalogStore store;
    private final CatalogCredential credential;
    private final Duration answerDelay;

    CatalogController(CatalogStore store, CatalogCredential credential, CatalogProperties properties) {
        this.store = store;
        this.credential = credential;
        this.answerDelay = properties.answerDelay();
    }

    @PostMapping(path = "/publications", consumes = "application/json")
    ResponseEntity<Publication> publish(@RequestHeader(name = "Idempotency-Key", required = false) String eventId,
            @RequestHeader(name = "Authorization", required = false) String authorization,
            @RequestBody byte[] body) {
        authorize(authorization);
        PublicationRequest request = read(body);
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
        CatalogStore.Applied applied = store.publish(eventId, request, PayloadDigest.sha256(body));
        holdAnswer(eventId);
        return switch (applied.outcome()) {
            case FIRST -> ResponseEntity.status(HttpStatus.CREATED).body(applied.publication());
            case REPLAY -> ResponseEntity.ok().header("Idempotent-Replayed", "true").body(applied.publication());
            case OTHER_PAYLOAD -> throw new ApiException(HttpStatus.UNPROCESSABLE_CONTENT, "IDEMPOTENCY_KEY_REUSED",
                    "Event " + eventId + " was published from another payload; the same Idempotency-Key with a different body"
                            + " is refused, not replayed. Nothing was changed.");
        };
    }

    /** The body as sent (its hash is what a replay is compared on), read as a publication request. */
    private PublicationRequest read(byte[] body) {
        try {
            return json.readValue(body, PublicationRequest.class);
        } catch (JacksonException e) {
            throw ApiException.badRequest("MALFORMED_REQUEST", "The request body is not a JSON publication: "
                    + e.getOriginalMessage());
        }
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
        if (!credential.admits(authorization)) {
            throw new ApiException(HttpStatus.UNAUTHORIZED, "CATALOG_UNAUTHORIZED",
                    "Send Authorization: Bearer <the catalog's lockstep.catalog.token>.");
        }
    }

    private static ApiException unprocessable(String detail) {
        return new ApiException(HttpStatus.UNPROCESSABLE_CONTENT, "CATALOG_PAYLOAD_INVALID", detail);
    }
}
