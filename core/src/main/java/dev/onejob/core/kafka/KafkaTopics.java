package dev.onejob.core.kafka;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.errors.TopicExistsException;

/**
 * Creates onejob's topics explicitly at startup (auto-creation stalls the first producer for a long time and picks
 * defaults nobody chose). Existing topics are left as they are.
 */
public final class KafkaTopics {
    private KafkaTopics() {
    }

    public static void ensure(String bootstrapServers, Collection<String> names, int partitions, short replication) {
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers,
                AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 30_000))) {
            Set<String> existing = admin.listTopics().names().get(30, TimeUnit.SECONDS);
            List<NewTopic> missing = new ArrayList<>();
            for (String name : names) {
                if (!existing.contains(name)) {
                    NewTopic topic = new NewTopic(name, partitions, replication);
                    if (name.equals(Topics.JOB_REQUESTS.name()) || name.equals(Topics.JOB_REQUESTS_DLQ.name())) {
                        topic.configs(Map.of("max.message.bytes",
                                Integer.toString(KafkaConfig.MAX_REQUEST_RECORD_BYTES + 64 * 1024)));
                    }
                    missing.add(topic);
                }
            }
            try {
                admin.createTopics(missing).all().get(30, TimeUnit.SECONDS);
            } catch (ExecutionException e) {
                if (!(e.getCause() instanceof TopicExistsException)) {
                    throw e;
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while creating topics", e);
        } catch (ExecutionException | TimeoutException e) {
            Throwable cause = e instanceof ExecutionException ? e.getCause() : e;
            throw new IllegalStateException("cannot create topics " + names + " at " + bootstrapServers + ": "
                    + cause.getMessage(), cause);
        }
    }

    public static List<String> allNames() {
        return Topics.ALL.stream().map(Topic::name).toList();
    }
}
