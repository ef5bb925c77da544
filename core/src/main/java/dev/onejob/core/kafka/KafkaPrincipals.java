package dev.onejob.core.kafka;

import com.fasterxml.jackson.databind.JsonNode;
import dev.onejob.core.config.ConfigException;
import dev.onejob.core.config.ConfigFiles;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Who is who on an authenticated Kafka cluster: the principals file ({@code KAFKA_PRINCIPALS_FILE}, default
 * {@code config/kafka-principals.yaml}), validated at startup with errors that name the field:
 * <pre>
 * owner_from: principal        # record (default: trust the record's owner_id) | principal
 * services:                    # the user names onejob's own services authenticate as
 *   ingest: onejob-ingest
 *   worker: onejob-worker
 *   reconciler: onejob-reconciler
 * analysts: [analytics]        # may read race-audit, nothing else
 * producers:                   # upstream principals, and the owners each may submit jobs for
 *   shop-backend: [alice]
 * </pre>
 * A Kafka consumer is never told which principal produced a record, so the owner can only come from the principal
 * through something the consumer does see: the topic. Each producer publishes to its own
 * {@code principal.<name>.job-requests}, which only it may write ({@link KafkaAcls}), and reads its answers on
 * {@code principal.<name>.job-request-outcomes}. The ingest service accepts a record there only for an owner the
 * producer is mapped to; with {@code owner_from: principal} it refuses every record on the shared
 * {@code job-requests} topic, whose writer it cannot know.
 */
public final class KafkaPrincipals {
    /** Kafka's user names as onejob accepts them: they become part of topic names. */
    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9_-]{1,100}");
    private static final String PREFIX = "principal.";
    private static final String REQUESTS_SUFFIX = ".job-requests";
    private static final String OUTCOMES_SUFFIX = ".job-request-outcomes";
    /** The topics {@code ingest-service} consumes: the shared one and every producer's own. */
    public static final Pattern REQUEST_TOPICS = Pattern.compile(Pattern.quote(Topics.JOB_REQUESTS.name()) + "|"
            + Pattern.quote(PREFIX) + "[A-Za-z0-9_-]{1,100}" + Pattern.quote(REQUESTS_SUFFIX));

    /** Where an owner on a job request is taken from. */
    public enum OwnerFrom {
        /** The record's {@code owner_id}, as written: one trusted broker, no authentication (the local stack). */
        RECORD,
        /** The producing principal, through its own topic; the shared topic is refused. */
        PRINCIPAL
    }

    /** The user names of onejob's own services. */
    public record Services(String ingest, String worker, String reconciler) {
    }

    /** No file: owners come from records, the default service names, no analysts or producers. */
    public static final KafkaPrincipals NONE = new KafkaPrincipals(OwnerFrom.RECORD,
            new Services("onejob-ingest", "onejob-worker", "onejob-reconciler"), List.of(), Map.of());

    private final OwnerFrom ownerFrom;
    private final Services services;
    private final List<String> analysts;
    private final Map<String, Set<String>> producers;

    public KafkaPrincipals(OwnerFrom ownerFrom, Services services, List<String> analysts,
                           Map<String, Set<String>> producers) {
        this.ownerFrom = ownerFrom;
        this.services = services;
        this.analysts = List.copyOf(analysts);
        Map<String, Set<String>> copy = new LinkedHashMap<>();
        producers.forEach((name, owners) -> copy.put(name,
                Collections.unmodifiableSet(new LinkedHashSet<>(owners))));
        this.producers = Collections.unmodifiableMap(copy);
    }

    public static KafkaPrincipals load(Path file) {
        Optional<JsonNode> sections = ConfigFiles.sections(file,
                List.of("owner_from", "services", "analysts", "producers"));
        if (sections.isEmpty()) {
            return NONE;
        }
        JsonNode root = sections.get();
        KafkaPrincipals principals = new KafkaPrincipals(ownerFrom(file, root), services(file, root),
                analysts(file, root), producers(file, root));
        Set<String> seen = new LinkedHashSet<>();
        for (String name : principals.allNames()) {
            if (!seen.add(name)) {
                throw new ConfigException(file + ": '" + name + "' is named twice; each service, analyst and"
                        + " producer needs its own principal, or its permissions would be the union of both");
            }
        }
        return principals;
    }

    private static OwnerFrom ownerFrom(Path file, JsonNode root) {
        if (!root.hasNonNull("owner_from")) {
            return OwnerFrom.RECORD;
        }
        String text = root.get("owner_from").asText("");
        return switch (text) {
            case "record" -> OwnerFrom.RECORD;
            case "principal" -> OwnerFrom.PRINCIPAL;
            default -> throw new ConfigException(file + ": owner_from must be record or principal, not '" + text
                    + "'");
        };
    }

    private static Services services(Path file, JsonNode root) {
        JsonNode services = root.get("services");
        if (services != null && !services.isNull() && !services.isObject()) {
            throw new ConfigException(file + ": 'services' must map ingest, worker and reconciler to user names");
        }
        if (services != null && services.isObject()) {
            for (Iterator<String> names = services.fieldNames(); names.hasNext(); ) {
                String name = names.next();
                if (!Set.of("ingest", "worker", "reconciler").contains(name)) {
                    throw new ConfigException(file + ": services." + name + " is not a service; expected ingest,"
                            + " worker or reconciler");
                }
            }
        }
        Services defaults = NONE.services;
        return new Services(name(file, services, "ingest", defaults.ingest()),
                name(file, services, "worker", defaults.worker()),
                name(file, services, "reconciler", defaults.reconciler()));
    }

    private static List<String> analysts(Path file, JsonNode root) {
        List<String> analysts = new ArrayList<>();
        JsonNode list = root.get("analysts");
        if (list != null && !list.isNull()) {
            if (!list.isArray()) {
                throw new ConfigException(file + ": 'analysts' must be a list of user names");
            }
            list.forEach(node -> analysts.add(checked(file, "analysts", node.asText(""))));
        }
        return analysts;
    }

    private static Map<String, Set<String>> producers(Path file, JsonNode root) {
        Map<String, Set<String>> producers = new LinkedHashMap<>();
        JsonNode map = root.get("producers");
        if (map == null || map.isNull()) {
            return producers;
        }
        if (!map.isObject()) {
            throw new ConfigException(file + ": 'producers' must map user names to the owners each may submit for");
        }
        map.fields().forEachRemaining(entry -> {
            String producer = checked(file, "producers", entry.getKey());
            if (!entry.getValue().isArray() || entry.getValue().isEmpty()) {
                throw new ConfigException(file + ": producers." + producer + " must be a non-empty list of owner"
                        + " ids");
            }
            Set<String> owners = new LinkedHashSet<>();
            entry.getValue().forEach(owner -> {
                if (!owner.isTextual() || owner.asText().isEmpty()) {
                    throw new ConfigException(file + ": producers." + producer + " lists an owner that is not a"
                            + " non-empty string");
                }
                owners.add(owner.asText());
            });
            producers.put(producer, owners);
        });
        return producers;
    }

    private static String name(Path file, JsonNode services, String field, String fallback) {
        if (services == null || !services.hasNonNull(field)) {
            return fallback;
        }
        return checked(file, "services." + field, services.get(field).asText(""));
    }

    private static String checked(Path file, String path, String name) {
        if (!NAME.matcher(name).matches()) {
            throw new ConfigException(file + ": " + path + ": '" + name + "' is not a user name onejob accepts"
                    + " (1 to 100 of A-Z a-z 0-9 _ -; it becomes part of topic names)");
        }
        return name;
    }

    public OwnerFrom ownerFrom() {
        return ownerFrom;
    }

    public Services services() {
        return services;
    }

    public List<String> analysts() {
        return analysts;
    }

    /** Producer user name to the owners it may submit jobs for, in the file's order. */
    public Map<String, Set<String>> producers() {
        return producers;
    }

    /** Every user name the file gives, services first. */
    public List<String> allNames() {
        List<String> names = new ArrayList<>(List.of(services.ingest(), services.worker(), services.reconciler()));
        names.addAll(analysts);
        names.addAll(producers.keySet());
        return names;
    }

    /** The topic only {@code producer} may write its job requests to. */
    public static String requestTopic(String producer) {
        return PREFIX + producer + REQUESTS_SUFFIX;
    }

    /** The topic where {@code producer} reads the answers to its job requests. */
    public static String outcomesTopic(String producer) {
        return PREFIX + producer + OUTCOMES_SUFFIX;
    }

    /** Every producer's two topics. */
    public List<String> producerTopics() {
        List<String> topics = new ArrayList<>();
        producers.keySet().forEach(p -> {
            topics.add(requestTopic(p));
            topics.add(outcomesTopic(p));
        });
        return topics;
    }

    /** The producer whose own topic {@code topic} is; empty for the shared {@code job-requests}. */
    public static Optional<String> producerOf(String topic) {
        if (topic.startsWith(PREFIX) && topic.endsWith(REQUESTS_SUFFIX)
                && topic.length() > PREFIX.length() + REQUESTS_SUFFIX.length()) {
            return Optional.of(topic.substring(PREFIX.length(), topic.length() - REQUESTS_SUFFIX.length()));
        }
        return Optional.empty();
    }

    /**
     * Why a job request read from {@code topic} for {@code ownerId} is refused; empty when it is accepted. A record
     * on a producer's own topic must name an owner the producer is mapped to; one on the shared topic is accepted
     * only while owners come from records.
     */
    public Optional<String> refusal(String topic, String ownerId) {
        Optional<String> producer = producerOf(topic);
        if (producer.isEmpty()) {
            return ownerFrom == OwnerFrom.RECORD ? Optional.empty() : Optional.of("owners come from the producing"
                    + " principal here, and the shared " + topic + " topic does not say who wrote a record: publish"
                    + " to principal.<your user name>.job-requests");
        }
        Set<String> owners = producers.get(producer.get());
        if (owners == null) {
            return Optional.of("principal '" + producer.get() + "' is not mapped to any owner in the principals"
                    + " file");
        }
        if (!owners.contains(ownerId)) {
            return Optional.of("principal '" + producer.get() + "' may not submit jobs for owner '" + ownerId
                    + "' (it may for: " + String.join(", ", owners) + ")");
        }
        return Optional.empty();
    }
}
