package dev.onejob.core.kafka;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.onejob.core.config.ConfigException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class KafkaPrincipalsTest {
    @TempDir
    Path dir;

    private KafkaPrincipals load(String yaml) throws IOException {
        Path file = dir.resolve("kafka-principals.yaml");
        Files.writeString(file, yaml);
        return KafkaPrincipals.load(file);
    }

    @Test
    void theShippedFileTrustsRecordsAndNamesTheServices() {
        KafkaPrincipals shipped = KafkaPrincipals.load(Path.of("../config/kafka-principals.yaml"));
        assertEquals(KafkaPrincipals.OwnerFrom.RECORD, shipped.ownerFrom());
        assertEquals(KafkaPrincipals.NONE.services(), shipped.services());
        assertEquals(Optional.empty(), shipped.refusal("job-requests", "alice"));
    }

    @Test
    void aMissingFileTrustsRecords() {
        assertEquals(KafkaPrincipals.NONE, KafkaPrincipals.load(dir.resolve("absent.yaml")));
    }

    @Test
    void ownersComeFromTheProducersOwnTopic() throws IOException {
        KafkaPrincipals principals = load("""
                owner_from: principal
                services: {ingest: in, worker: wk, reconciler: rc}
                analysts: [analytics]
                producers:
                  shop: [alice, carol]
                """);
        assertEquals(List.of("in", "wk", "rc", "analytics", "shop"), principals.allNames());
        assertEquals(Set.of("alice", "carol"), principals.producers().get("shop"));
        assertEquals(Optional.empty(), principals.refusal("principal.shop.job-requests", "carol"));
        assertTrue(principals.refusal("principal.shop.job-requests", "bob").orElseThrow()
                .contains("may not submit jobs for owner 'bob'"));
        assertTrue(principals.refusal("principal.other.job-requests", "alice").orElseThrow()
                .contains("not mapped to any owner"));
        assertTrue(principals.refusal("job-requests", "alice").orElseThrow().contains("shared job-requests topic"));
        assertEquals(List.of("principal.shop.job-requests", "principal.shop.job-request-outcomes"),
                principals.producerTopics());
    }

    @Test
    void theRequestTopicPatternTakesProducersTopicsAndNotTheDeadLetters() {
        assertTrue(KafkaPrincipals.REQUEST_TOPICS.matcher("job-requests").matches());
        assertTrue(KafkaPrincipals.REQUEST_TOPICS.matcher("principal.shop-1.job-requests").matches());
        assertTrue(!KafkaPrincipals.REQUEST_TOPICS.matcher("job-requests.dlq").matches());
        assertTrue(!KafkaPrincipals.REQUEST_TOPICS.matcher("principal.shop.job-request-outcomes").matches());
        assertEquals(Optional.of("shop-1"), KafkaPrincipals.producerOf("principal.shop-1.job-requests"));
        assertEquals(Optional.empty(), KafkaPrincipals.producerOf("job-requests"));
    }

    @Test
    void mistakesAreNamed() {
        assertEquals("x: owner_from must be record or principal, not 'topic'", message("owner_from: topic\n"));
        assertTrue(message("services: {ingest: a, gateway: b}\n").contains("services.gateway is not a service"));
        assertTrue(message("producers: {'bad name': [alice]}\n").contains("is not a user name onejob accepts"));
        assertTrue(message("producers: {shop: []}\n").contains("producers.shop must be a non-empty list"));
        assertTrue(message("analysts: [onejob-worker]\n").contains("'onejob-worker' is named twice"));
        assertTrue(message("consumers: {}\n").contains("'consumers' is not a section"));
    }

    private String message(String yaml) {
        ConfigException e = assertThrows(ConfigException.class, () -> load(yaml));
        return e.getMessage().replace(dir.resolve("kafka-principals.yaml").toString(), "x");
    }
}
