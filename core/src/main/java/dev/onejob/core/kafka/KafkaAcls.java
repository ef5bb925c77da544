package dev.onejob.core.kafka;

import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.common.acl.AccessControlEntry;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.acl.AclPermissionType;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourcePattern;
import org.apache.kafka.common.resource.ResourceType;

/**
 * The ACLs of an authenticated cluster, derived from the {@link KafkaPrincipals}: each service gets exactly the
 * topics, groups and transactional ids it uses, and nothing else is allowed (brokers run with
 * {@code allow.everyone.if.no.acl.found=false}).
 * <ul>
 *   <li>ingest reads the job-request topics (the shared one and every producer's own), writes their answers and
 *       dead letters, relays the outbox (attempt and certification commands, results, race records) and reads {@code job-results} for
 *       the waiting HTTP requests;</li>
 *   <li>workers read {@code attempt-commands} and write completions (and the commands' dead letters): no other
 *       principal may write {@code attempt-completions}; they also read {@code certification-commands} (they alone
 *       call providers, certification's golden calls included);</li>
 *   <li>reconcilers read completions, relay the outbox, and own their Streams application's topics;</li>
 *   <li>analysts read {@code race-audit} and its statistics, with groups named {@code <user>.} anything;</li>
 *   <li>each producer writes only its own {@code principal.<user>.job-requests} and reads only its own answers.</li>
 * </ul>
 * Every service may also describe every onejob topic (startup checks the topics' layout) but create none.
 */
public final class KafkaAcls {
    private static final List<String> OUTBOX_TOPICS = List.of(Topics.ATTEMPT_COMMANDS.name(),
            Topics.JOB_RESULTS.name(), Topics.RACE_AUDIT.name(), Topics.CERTIFICATION_COMMANDS.name());

    private KafkaAcls() {
    }

    public static List<AclBinding> bindings(KafkaPrincipals principals) {
        List<AclBinding> acls = new ArrayList<>();
        ingest(acls, principals);
        worker(acls, principals.services().worker());
        reconciler(acls, principals.services().reconciler());
        for (String analyst : principals.analysts()) {
            for (String topic : List.of(Topics.RACE_AUDIT.name(), Topics.RACE_AUDIT_STATS.name())) {
                allow(acls, analyst, topic(topic), AclOperation.READ, AclOperation.DESCRIBE);
            }
            allow(acls, analyst, prefixed(ResourceType.GROUP, analyst + "."), AclOperation.READ,
                    AclOperation.DESCRIBE);
        }
        for (String producer : principals.producers().keySet()) {
            allow(acls, producer, topic(KafkaPrincipals.requestTopic(producer)), AclOperation.WRITE,
                    AclOperation.DESCRIBE);
            allow(acls, producer, topic(KafkaPrincipals.outcomesTopic(producer)), AclOperation.READ,
                    AclOperation.DESCRIBE);
            allow(acls, producer, prefixed(ResourceType.GROUP, producer + "."), AclOperation.READ,
                    AclOperation.DESCRIBE);
        }
        return List.copyOf(acls);
    }

    private static void ingest(List<AclBinding> acls, KafkaPrincipals principals) {
        String ingest = principals.services().ingest();
        Set<String> described = new LinkedHashSet<>(KafkaTopics.allNames());
        described.addAll(principals.producerTopics());
        for (String topic : described) {
            allow(acls, ingest, topic(topic), AclOperation.DESCRIBE, AclOperation.DESCRIBE_CONFIGS);
        }
        allow(acls, ingest, topic(Topics.JOB_REQUESTS.name()), AclOperation.READ);
        allow(acls, ingest, group(Groups.INGEST), AclOperation.READ, AclOperation.DESCRIBE);
        allow(acls, ingest, topic(Topics.JOB_REQUEST_OUTCOMES.name()), AclOperation.WRITE);
        allow(acls, ingest, topic(Topics.JOB_REQUESTS_DLQ.name()), AclOperation.WRITE);
        for (String producer : principals.producers().keySet()) {
            allow(acls, ingest, topic(KafkaPrincipals.requestTopic(producer)), AclOperation.READ);
            allow(acls, ingest, topic(KafkaPrincipals.outcomesTopic(producer)), AclOperation.WRITE);
        }
        outboxRelay(acls, ingest);
        allow(acls, ingest, topic(Topics.JOB_RESULTS.name()), AclOperation.READ);
        allow(acls, ingest, topic(Topics.ATTEMPT_CHUNKS.name()), AclOperation.READ);
        // The HTTP front door's backlog figure: the workers' committed offsets on attempt-commands.
        allow(acls, ingest, group(Groups.WORKER), AclOperation.DESCRIBE);
    }

    private static void worker(List<AclBinding> acls, String worker) {
        for (String topic : KafkaTopics.allNames()) {
            allow(acls, worker, topic(topic), AclOperation.DESCRIBE, AclOperation.DESCRIBE_CONFIGS);
        }
        allow(acls, worker, topic(Topics.ATTEMPT_COMMANDS.name()), AclOperation.READ);
        allow(acls, worker, group(Groups.WORKER), AclOperation.READ, AclOperation.DESCRIBE);
        allow(acls, worker, topic(Topics.ATTEMPT_COMPLETIONS.name()), AclOperation.WRITE);
        allow(acls, worker, topic(Topics.ATTEMPT_CHUNKS.name()), AclOperation.WRITE);
        allow(acls, worker, topic(Topics.ATTEMPT_COMMANDS_DLQ.name()), AclOperation.WRITE);
        // Certification is the workers' work: they alone hold the providers' keys.
        allow(acls, worker, topic(Topics.CERTIFICATION_COMMANDS.name()), AclOperation.READ);
        allow(acls, worker, group(Groups.CERTIFIER), AclOperation.READ, AclOperation.DESCRIBE);
        allow(acls, worker, topic(Topics.CERTIFICATION_COMMANDS_DLQ.name()), AclOperation.WRITE);
    }

    private static void reconciler(List<AclBinding> acls, String reconciler) {
        for (String topic : KafkaTopics.allNames()) {
            allow(acls, reconciler, topic(topic), AclOperation.DESCRIBE, AclOperation.DESCRIBE_CONFIGS);
        }
        allow(acls, reconciler, topic(Topics.ATTEMPT_COMPLETIONS.name()), AclOperation.READ);
        allow(acls, reconciler, topic(Topics.ATTEMPT_COMPLETIONS_DLQ.name()), AclOperation.WRITE);
        allow(acls, reconciler, topic(Topics.RACE_AUDIT.name()), AclOperation.READ);
        allow(acls, reconciler, topic(Topics.RACE_AUDIT_STATS.name()), AclOperation.WRITE);
        // The completion consumers' group and transactions, the race statistics' Streams application (group,
        // transactions, and the changelog and repartition topics it creates): all named with the reconciler prefix.
        allow(acls, reconciler, prefixed(ResourceType.GROUP, Groups.RECONCILER), AclOperation.READ,
                AclOperation.DESCRIBE);
        allow(acls, reconciler, prefixed(ResourceType.TRANSACTIONAL_ID, Groups.RECONCILER), AclOperation.WRITE,
                AclOperation.DESCRIBE);
        allow(acls, reconciler, prefixed(ResourceType.TOPIC, Groups.RECONCILER), AclOperation.ALL);
        outboxRelay(acls, reconciler);
    }

    /** Creates the bindings (creating an existing binding again changes nothing); the admin must be a super user. */
    public static void apply(Admin admin, Collection<AclBinding> bindings) {
        try {
            admin.createAcls(bindings).all().get(60, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            throw new IllegalStateException("the broker refused the ACLs: " + e.getCause(), e.getCause());
        } catch (TimeoutException e) {
            throw new BrokerUnavailableException("the broker did not take the ACLs within 60 s", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while creating ACLs", e);
        }
    }

    /** One binding per line, as {@code kafka-acls.sh --list} would read them, for docs and the CLI. */
    public static String describe(AclBinding binding) {
        ResourcePattern pattern = binding.pattern();
        return binding.entry().principal() + " " + binding.entry().operation() + " " + pattern.resourceType() + " " + pattern.name()
                + (pattern.patternType() == PatternType.PREFIXED ? "*" : "");
    }

    private static void outboxRelay(List<AclBinding> acls, String principal) {
        for (String topic : OUTBOX_TOPICS) {
            // READ as well: the relay checks what it published before marking rows sent.
            allow(acls, principal, topic(topic), AclOperation.WRITE, AclOperation.READ);
        }
        allow(acls, principal, prefixed(ResourceType.TRANSACTIONAL_ID, Groups.OUTBOX_RELAY_TRANSACTIONS),
                AclOperation.WRITE, AclOperation.DESCRIBE);
    }

    private static ResourcePattern topic(String name) {
        return new ResourcePattern(ResourceType.TOPIC, name, PatternType.LITERAL);
    }

    private static ResourcePattern group(String name) {
        return new ResourcePattern(ResourceType.GROUP, name, PatternType.LITERAL);
    }

    private static ResourcePattern prefixed(ResourceType type, String prefix) {
        return new ResourcePattern(type, prefix, PatternType.PREFIXED);
    }

    private static void allow(List<AclBinding> acls, String user, ResourcePattern pattern,
                              AclOperation... operations) {
        for (AclOperation operation : operations) {
            acls.add(new AclBinding(pattern, new AccessControlEntry("User:" + user, "*", operation,
                    AclPermissionType.ALLOW)));
        }
    }
}
