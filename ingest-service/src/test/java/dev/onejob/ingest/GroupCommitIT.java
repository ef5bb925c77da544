package dev.onejob.ingest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.onejob.core.db.Database;
import dev.onejob.core.json.Json;
import dev.onejob.core.ledger.Ledger;
import dev.onejob.testing.TestDatabase;
import java.net.http.HttpResponse;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * HTTP submissions that arrive together share a transaction (group commit), and each still gets the answer it would
 * get alone: a new key 201, the same key and payload again 200 with the same job, the same key with another payload
 * 409, a body that breaks the contract 422 without reaching the database, and one that PostgreSQL refuses (a trigger
 * an operator added, on this run's own database) 500 with nothing written, while its group's neighbours commit.
 */
class GroupCommitIT {
    private static final String REFUSED = "-refused-by-the-database";
    private static final Ledger LEDGER = new Ledger(Database.wrap(TestDatabase.shared().dataSource()));
    private static final Pattern GROUP_MAX = Pattern.compile("(?m)^onejob_http_submit_group_size_max(?:\\{[^}]*})? "
            + "([0-9.eE+-]+)$");
    private final IngestFixture ingest = IngestFixture.shared();

    @BeforeAll
    static void refuseSomeKeys() throws SQLException {
        RefusedKeys.install("refuse_group_commit_keys", REFUSED);
    }

    @AfterAll
    static void stopRefusing() throws SQLException {
        RefusedKeys.remove("refuse_group_commit_keys");
    }

    /** One submission of a round and the status it must get; {@code pair} names the two that share a key. */
    private record Sent(String key, String body, String pair) {
    }

    @Test
    void submissionsCommittedTogetherEachGetTheAnswerTheyWouldGetAlone() throws Exception {
        int rounds = 8;
        ExecutorService clients = Executors.newFixedThreadPool(48);
        try {
            for (int round = 0; round < rounds; round++) {
                // given 48 submissions at once: 24 new keys, 6 keys sent twice with one payload, 4 sent twice with
                // two payloads, 2 the database refuses, 2 that break the contract
                String run = "group-" + UUID.randomUUID();
                List<Sent> sent = new ArrayList<>();
                for (int i = 0; i < 24; i++) {
                    sent.add(new Sent(run + "-new-" + i, IngestFixture.request("new " + i), null));
                }
                for (int i = 0; i < 6; i++) {
                    sent.add(new Sent(run + "-twice-" + i, IngestFixture.request("same " + i), "same"));
                    sent.add(new Sent(run + "-twice-" + i, IngestFixture.request("same " + i), "same"));
                }
                for (int i = 0; i < 4; i++) {
                    sent.add(new Sent(run + "-conflict-" + i, IngestFixture.request("first " + i), "conflict"));
                    sent.add(new Sent(run + "-conflict-" + i, IngestFixture.request("second " + i), "conflict"));
                }
                for (int i = 0; i < 2; i++) {
                    sent.add(new Sent(run + "-" + i + REFUSED, IngestFixture.request("refused " + i), null));
                    sent.add(new Sent(run + "-invalid-" + i, "{\"contract\":\"sentiment\",\"variables\":{},"
                            + "\"target\":\"primary\"}", null));
                }
                CyclicBarrier start = new CyclicBarrier(sent.size());
                List<Future<HttpResponse<String>>> answers = new ArrayList<>();
                for (Sent one : sent) {
                    answers.add(clients.submit(() -> {
                        start.await();
                        return ingest.submit(IngestFixture.ALICE, one.key(), one.body());
                    }));
                }

                // then each answer is what it would be alone
                Map<String, List<Integer>> byKey = new TreeMap<>();
                Map<String, List<String>> jobIds = new TreeMap<>();
                for (int i = 0; i < sent.size(); i++) {
                    HttpResponse<String> answer = answers.get(i).get();
                    byKey.computeIfAbsent(sent.get(i).key(), k -> new ArrayList<>()).add(answer.statusCode());
                    if (answer.statusCode() < 300) {
                        jobIds.computeIfAbsent(sent.get(i).key(), k -> new ArrayList<>())
                                .add(Json.parse(answer.body()).path("id").asText());
                    }
                }
                for (Map.Entry<String, List<Integer>> entry : byKey.entrySet()) {
                    String key = entry.getKey();
                    List<Integer> statuses = new ArrayList<>(entry.getValue());
                    statuses.sort(Integer::compare);
                    if (key.contains("-new-")) {
                        assertEquals(List.of(201), statuses, key);
                    } else if (key.contains("-twice-")) {
                        assertEquals(List.of(200, 201), statuses, key);
                        assertEquals(1, jobIds.get(key).stream().distinct().count(), "one job for " + key);
                    } else if (key.contains("-conflict-")) {
                        assertEquals(List.of(201, 409), statuses, key);
                    } else if (key.endsWith(REFUSED)) {
                        assertEquals(List.of(500), statuses, key);
                        assertTrue(LEDGER.lookups().jobForKey("alice", key).isEmpty(), "nothing written for " + key);
                    } else {
                        assertEquals(List.of(422), statuses, key);
                        assertTrue(LEDGER.lookups().jobForKey("alice", key).isEmpty(), "nothing written for " + key);
                    }
                }
            }
        } finally {
            clients.shutdownNow();
        }

        // and submissions did share transactions
        HttpResponse<String> metrics = ingest.send("GET", "/metrics", IngestFixture.OPS, Map.of(), null);
        Matcher max = GROUP_MAX.matcher(metrics.body());
        assertTrue(max.find(), "no onejob_http_submit_group_size_max in /metrics");
        assertTrue(Double.parseDouble(max.group(1)) > 1, "no group of more than one submission in " + rounds
                + " rounds of 48 at once: " + max.group(0));
    }
}
