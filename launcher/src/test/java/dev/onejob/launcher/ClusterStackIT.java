package dev.onejob.launcher;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.onejob.core.kafka.KafkaPrincipals;
import dev.onejob.stack.ClusterStack;
import dev.onejob.testing.Await;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;

/**
 * {@code ./onejob cluster}'s stack with one worker and one reconciler: a job submitted over HTTP through nginx
 * succeeds, and so does one the demo producer publishes on its own topic, answered on its own outcomes topic, with
 * every service authenticated as its own principal on the three-node cluster.
 */
class ClusterStackIT {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String REQUEST = "{\"contract\":\"sentiment\",\"variables\":{\"text\":\"I loved it\"},"
            + "\"target\":\"primary\",\"fallbacks\":[\"backup\"]}";

    @Test
    void jobsOverHttpAndFromTheProducersOwnTopicSucceedOnTheAuthenticatedCluster() throws Exception {
        Path root = Path.of(System.getenv().getOrDefault("ONEJOB_ROOT", "..")).toAbsolutePath().normalize();
        try (ClusterStack stack = ClusterStack.start(root, "launcher", root.resolve("launcher/target/cluster-it"),
                new ClusterStack.Shape(1, 1), System.getenv(), System.out::println)) {
            String token = stack.files().token("alice");

            // when alice submits a job through nginx, then it succeeds
            HttpResponse<String> created = http(HttpRequest.newBuilder(URI.create(stack.apiUrl() + "/v1/jobs"))
                    .header("Authorization", "Bearer " + token).header("Idempotency-Key", "cluster-it-http")
                    .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(REQUEST)));
            assertEquals(201, created.statusCode(), created.body());
            String job = JSON.readTree(created.body()).get("id").asText();
            Await.until(Duration.ofSeconds(60), "job " + job + " to succeed", () -> "SUCCEEDED".equals(status(stack,
                    token, job)));

            // when the demo producer publishes a request for alice on its own topic, then it is created and succeeds
            String key = "cluster-it-kafka";
            try (KafkaProducer<String, String> producer = new KafkaProducer<>(stack.kafka()
                    .clientConfig(ClusterStack.PRODUCER).producer("cluster-it"), new StringSerializer(),
                    new StringSerializer())) {
                producer.send(new ProducerRecord<>(KafkaPrincipals.requestTopic(ClusterStack.PRODUCER), "alice",
                        "{\"owner_id\":\"alice\",\"idempotency_key\":\"" + key + "\",\"request\":" + REQUEST + "}"))
                        .get(30, TimeUnit.SECONDS);
            }
            JsonNode outcome = outcome(stack, key);
            assertEquals("CREATED", outcome.get("outcome").asText(), outcome.toString());
            String fromKafka = outcome.get("job_id").asText();
            Await.until(Duration.ofSeconds(60), "job " + fromKafka + " to succeed", () -> "SUCCEEDED".equals(
                    status(stack, token, fromKafka)));
        }
    }

    private static String status(ClusterStack stack, String token, String job) {
        try {
            HttpResponse<String> response = http(HttpRequest.newBuilder(URI.create(stack.apiUrl() + "/v1/jobs/" + job))
                    .header("Authorization", "Bearer " + token).header("Prefer", "wait=5").GET());
            return response.statusCode() == 200 ? JSON.readTree(response.body()).get("status").asText() : null;
        } catch (Exception e) {
            throw new AssertionError("cannot read job " + job, e);
        }
    }

    /** The producer's answer for {@code key} on its own outcomes topic, read as the producer (a group of its own). */
    private static JsonNode outcome(ClusterStack stack, String key) {
        Map<String, Object> config = stack.kafka().clientConfig(ClusterStack.PRODUCER)
                .consumer(ClusterStack.PRODUCER + ".cluster-it", "cluster-it-outcomes");
        JsonNode[] found = new JsonNode[1];
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(config, new StringDeserializer(),
                new StringDeserializer())) {
            consumer.subscribe(List.of(KafkaPrincipals.outcomesTopic(ClusterStack.PRODUCER)));
            Await.until(Duration.ofSeconds(60), "the answer to " + key, () -> {
                for (ConsumerRecord<String, String> record : consumer.poll(Duration.ofMillis(200))) {
                    JsonNode answer = parse(record.value());
                    if (key.equals(answer.path("idempotency_key").asText())) {
                        found[0] = answer;
                    }
                }
                return found[0] != null;
            });
        }
        return found[0];
    }

    private static JsonNode parse(String json) {
        try {
            return JSON.readTree(json);
        } catch (Exception e) {
            throw new AssertionError("not JSON: " + json, e);
        }
    }

    private static HttpResponse<String> http(HttpRequest.Builder request) throws Exception {
        return HttpClient.newHttpClient().send(request.timeout(Duration.ofSeconds(30)).build(),
                HttpResponse.BodyHandlers.ofString());
    }
}
