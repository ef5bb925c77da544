package dev.onejob.ingest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.onejob.core.db.Database;
import dev.onejob.core.json.Json;
import dev.onejob.core.ledger.Ledger;
import dev.onejob.ingest.http.FrontDoor;
import dev.onejob.testing.TestDatabase;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The per-owner rate limit over real HTTP: 429 problem+json with Retry-After, nothing written, others unaffected. */
class RateLimitIT {
    private static final String CAROL = "carol-token-0123456789";
    private static final String DAVE = "dave-token-0123456789";
    private final Database database = Database.wrap(TestDatabase.shared().dataSource());
    private final HttpClient http = HttpClient.newHttpClient();
    private IngestService service;

    @BeforeEach
    void start() throws Exception {
        Path tokens = new TokensFile().token("carol", "[submit]", CAROL).token("dave", "[submit]", DAVE)
                .write("onejob-rate-limit");
        service = IngestFixture.startInstance("rate-limit-test", tokens, 2, Map.of("HTTP_THREADS", "4"), 64 * 1024,
                FrontDoor.defaults().withRatePerOwner(1));
    }

    @AfterEach
    void stop() {
        service.close();
    }

    @Test
    void anOwnerOverTheLimitGets429WithRetryAfterAndNothingIsWritten() throws Exception {
        String run = UUID.randomUUID().toString();
        int accepted = 0;
        HttpResponse<String> refused = null;
        String refusedKey = null;
        for (int i = 0; i < 10 && refused == null; i++) {
            String key = run + "-" + i;
            HttpResponse<String> response = submit(CAROL, key);
            if (response.statusCode() == 429) {
                refused = response;
                refusedKey = key;
            } else {
                assertEquals(201, response.statusCode(), response.body());
                accepted++;
            }
        }

        assertTrue(refused != null, "a burst of 10 at 1 per second is refused before its end");
        assertTrue(accepted >= 1 && accepted <= 3, "the burst allowance is twice the rate: " + accepted);
        assertEquals("application/problem+json", refused.headers().firstValue("Content-Type").orElse(""));
        JsonNode problem = Json.parse(refused.body());
        assertEquals("https://onejob.dev/problems/rate-limited", problem.path("type").asText());
        long retryAfter = Long.parseLong(refused.headers().firstValue("Retry-After").orElseThrow());
        assertTrue(retryAfter >= 1, "Retry-After: " + retryAfter);
        assertTrue(new Ledger(database).lookups().jobForKey("carol", refusedKey).isEmpty(), "a refused request writes nothing");
        assertEquals(201, submit(DAVE, run + "-dave").statusCode(), "another owner is unaffected");

        Thread.sleep(Duration.ofSeconds(retryAfter).toMillis());
        assertEquals(201, submit(CAROL, refusedKey).statusCode(), "after Retry-After the same key goes through");
    }

    private HttpResponse<String> submit(String token, String key) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + service.httpPort() + "/v1/jobs"))
                .header("Authorization", "Bearer " + token).header("Idempotency-Key", key)
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(IngestFixture.request("rate limited?"))).build(),
                HttpResponse.BodyHandlers.ofString());
    }
}
