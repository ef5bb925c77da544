package dev.onejob.launcher;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.networknt.schema.JsonSchema;
import com.networknt.schema.JsonSchemaFactory;
import com.networknt.schema.SchemaLocation;
import com.networknt.schema.SpecVersion;
import com.networknt.schema.ValidationMessage;
import dev.onejob.core.kafka.KafkaPrincipals;
import dev.onejob.ingest.Tokens;
import dev.onejob.launcher.cli.CliContext;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.io.Reader;
import java.io.StringReader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import kafka.server.KafkaConfig;
import org.apache.kafka.server.config.AbstractKafkaConfig;
import org.junit.jupiter.api.Test;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.constructor.SafeConstructor;
import picocli.CommandLine.ParseResult;

/**
 * {@code docker-compose.yml} read as a new user would, since no container engine runs it where onejob is built: it is
 * a valid Compose file (the Compose Specification's own JSON schema), publishes nothing beyond 127.0.0.1 and nothing
 * on the ports a local PostgreSQL or {@code ./onejob dev} take, runs jars the build makes, authenticates PostgreSQL by
 * password, and names a tokens file that lets its documented token in. Its Kafka is three KRaft nodes that Kafka
 * 4.x's own {@code KafkaConfig} accepts, with SASL on every listener, the authorizer denying what no ACL allows,
 * only the cluster's own principals as super users, three replicas with two in sync, each onejob service as its own
 * principal from the compose principals file, and the ACLs applied by {@code kafka acls --apply} before any service
 * starts. The file is read with SnakeYAML, which resolves the {@code <<} merge keys as Compose does.
 */
class ComposeFileTest {
    private static final Path ROOT = Path.of("..");
    /**
     * The Compose Specification's schema: compose-spec/compose-spec {@code schema/compose-spec.json} at commit
     * 170098ba07d9f53c383a41bfd4c5166b0a4529a6 (the file last changed in a08f8d51631b7127ddac3d2c65537db429d0f1d0).
     */
    private static final String COMPOSE_SPEC = "/compose-spec.json";
    private static final List<String> LOCAL_PORTS = List.of("5432", "9092", "8080", "9001", "9002");
    /** The onejob services and the principals-file entry each authenticates as. */
    private static final Map<String, String> SERVICE_ROLES = Map.of("ingest-service", "ingest",
            "attempt-worker", "worker", "result-reconciler", "reconciler");
    /** What the brokers' mount of config/compose is called inside their containers. */
    private static final String COMPOSE_MOUNT = "/compose/";
    private static final Path COMPOSE_DIR = ROOT.resolve("config/compose");

    private static JsonNode compose() throws IOException {
        try (Reader in = Files.newBufferedReader(ROOT.resolve("docker-compose.yml"))) {
            return new ObjectMapper().valueToTree(new Yaml(new SafeConstructor(new LoaderOptions())).load(in));
        }
    }

    private static Map<String, JsonNode> brokers(JsonNode compose) {
        Map<String, JsonNode> brokers = new LinkedHashMap<>();
        compose.path("services").fields().forEachRemaining(s -> {
            if (s.getValue().path("image").asText().startsWith("apache/kafka:")) {
                brokers.put(s.getKey(), s.getValue());
            }
        });
        return brokers;
    }

    private static String env(JsonNode service, String name) {
        JsonNode environment = service.path("environment");
        assertTrue(environment.isObject(), "environment as a mapping");
        return environment.path(name).asText();
    }

    /** A node's server properties, named from its KAFKA_* variables as the apache/kafka image and kafka-start.sh do. */
    private static Properties serverProperties(JsonNode broker) {
        Set<String> jvm = Set.of("KAFKA_OPTS", "KAFKA_HEAP_OPTS", "KAFKA_JVM_PERFORMANCE_OPTS", "KAFKA_GC_LOG_OPTS",
                "KAFKA_LOG4J_OPTS", "KAFKA_JMX_OPTS");
        Properties props = new Properties();
        broker.path("environment").fields().forEachRemaining(e -> {
            if (e.getKey().startsWith("KAFKA_") && !jvm.contains(e.getKey())) {
                props.setProperty(e.getKey().substring("KAFKA_".length()).toLowerCase(Locale.ROOT).replace('_', '.')
                        .replace("...", "-").replace("..", "_"), e.getValue().asText());
            }
        });
        return props;
    }

    /** Listener name to {@code host:port}, from a {@code NAME://host:port,...} list. */
    private static Map<String, String> listeners(String list) {
        Map<String, String> byName = new LinkedHashMap<>();
        for (String listener : list.split(",")) {
            byName.put(listener.substring(0, listener.indexOf("://")), listener.substring(listener.indexOf("://") + 3));
        }
        return byName;
    }

    private static Map<String, String> pairs(String list, String separator) {
        Map<String, String> map = new LinkedHashMap<>();
        for (String pair : list.split(",")) {
            map.put(pair.substring(0, pair.indexOf(separator)), pair.substring(pair.indexOf(separator) + 1));
        }
        return map;
    }

    /** The options of each {@code <listener>.KafkaServer} section of the brokers' JAAS file, by listener. */
    private static Map<String, Map<String, String>> jaasSections() throws IOException {
        Map<String, Map<String, String>> sections = new LinkedHashMap<>();
        Matcher section = Pattern.compile("(?s)(\\w+)\\.KafkaServer\\s*\\{(.*?)};")
                .matcher(Files.readString(COMPOSE_DIR.resolve("kafka-jaas.conf")));
        while (section.find()) {
            Map<String, String> options = new LinkedHashMap<>();
            Matcher option = Pattern.compile("(\\w+)=\"([^\"]*)\"").matcher(section.group(2));
            while (option.find()) {
                options.put(option.group(1), option.group(2));
            }
            options.put("module", section.group(2).trim().split("\\s+")[0]);
            sections.put(section.group(1), options);
        }
        return sections;
    }

    private static String password(String user) throws IOException {
        return Files.readString(COMPOSE_DIR.resolve("secrets").resolve(user + ".password")).stripTrailing();
    }

    private static KafkaPrincipals principals(JsonNode service) {
        return KafkaPrincipals.load(ROOT.resolve(env(service, "KAFKA_PRINCIPALS_FILE")));
    }

    @Test
    void theFileIsAValidComposeFileAndTheSchemaWouldSayOtherwise() throws IOException {
        JsonSchema schema;
        try (InputStream in = ComposeFileTest.class.getResourceAsStream(COMPOSE_SPEC)) {
            // The schema's own $id is relative ("compose_spec.json"): it needs a base to resolve against.
            schema = JsonSchemaFactory.getInstance(SpecVersion.VersionFlag.V7).getSchema(
                    SchemaLocation.of("https://github.com/compose-spec/compose-spec/schema/compose-spec.json"),
                    new ObjectMapper().readTree(in));
        }
        JsonNode compose = compose();
        assertEquals(Set.of(), schema.validate(compose));

        ObjectNode broken = compose.deepCopy();
        ((ObjectNode) broken.path("services").path("kafka-1")).put("helthcheck", "misspelt");
        ((ObjectNode) broken.path("services").path("postgres")).put("ports", 15432);
        Set<ValidationMessage> violations = schema.validate(broken);
        assertEquals(2, violations.size(), violations.toString());
    }

    @Test
    void everyPortIsOnLoopbackAndClearOfTheLocalStack() throws IOException {
        List<String> published = new ArrayList<>();
        compose().path("services").fields().forEachRemaining(s -> s.getValue().path("ports")
                .forEach(p -> published.add(s.getKey() + " " + p.asText())));
        assertEquals(7, published.size(), "API, PostgreSQL, two simulators, three Kafka nodes: " + published);
        for (String port : published) {
            String[] parts = port.substring(port.indexOf(' ') + 1).split(":");
            assertEquals(3, parts.length, "host address, host port, container port: " + port);
            assertEquals("127.0.0.1", parts[0], port);
            assertFalse(LOCAL_PORTS.contains(parts[1]), "clashes with a local service: " + port);
        }
    }

    @Test
    void everyServiceRunsAJarTheBuildMakesRunnableOnItsOwn() throws IOException {
        Pattern jar = Pattern.compile("([a-z-]+)/target/onejob-([a-z-]+)-[0-9.]+-SNAPSHOT\\.jar");
        int jars = 0;
        for (JsonNode service : compose().path("services")) {
            for (JsonNode part : service.path("command")) {
                Matcher m = jar.matcher(part.asText());
                if (m.matches()) {
                    jars++;
                    Path pom = ROOT.resolve(m.group(1)).resolve("pom.xml");
                    assertTrue(Files.isRegularFile(pom), part.asText());
                    assertEquals(m.group(1), m.group(2), "the jar is named after its module: " + part.asText());
                    String text = Files.readString(pom);
                    assertTrue(text.contains("<artifactId>onejob-" + m.group(1) + "</artifactId>"), part.asText());
                    // java -jar in a container: the manifest names the main class and the copied lib/ directory.
                    assertTrue(text.contains("<mainClass>") && text.contains("<classpathPrefix>lib/</classpathPrefix>")
                            && text.contains("<goal>copy-dependencies</goal>"), pom + " makes a runnable jar");
                }
            }
        }
        assertEquals(6, jars, "two simulators, the three services and kafka-setup's launcher");
    }

    @Test
    void threeKraftNodesFormOneQuorum() throws IOException {
        Map<String, JsonNode> brokers = brokers(compose());
        assertEquals(List.of("kafka-1", "kafka-2", "kafka-3"), List.copyOf(brokers.keySet()));
        Set<String> ids = new HashSet<>();
        Set<String> voters = new HashSet<>();
        Set<String> clusters = new HashSet<>();
        for (var broker : brokers.entrySet()) {
            ids.add(env(broker.getValue(), "KAFKA_NODE_ID"));
            voters.add(env(broker.getValue(), "KAFKA_CONTROLLER_QUORUM_VOTERS"));
            clusters.add(env(broker.getValue(), "CLUSTER_ID"));
            assertEquals(Set.of("broker", "controller"),
                    Set.of(env(broker.getValue(), "KAFKA_PROCESS_ROLES").split(",")), broker.getKey());
        }
        assertEquals(3, ids.size(), "distinct node ids: " + ids);
        assertEquals(1, voters.size(), "the same voters on every node: " + voters);
        assertEquals(1, clusters.size(), "one cluster id: " + clusters);
        Map<String, String> quorum = pairs(voters.iterator().next(), "@");
        assertEquals(ids, quorum.keySet(), "every node votes");
        for (var broker : brokers.entrySet()) {
            String controller = listeners(env(broker.getValue(), "KAFKA_LISTENERS"))
                    .get(env(broker.getValue(), "KAFKA_CONTROLLER_LISTENER_NAMES"));
            assertEquals(broker.getKey() + controller, quorum.get(env(broker.getValue(), "KAFKA_NODE_ID")),
                    "a voter is its node's controller listener");
        }
    }

    @Test
    void eachNodesSettingsAreOnesKafkaAccepts() throws IOException {
        Set<String> known = new HashSet<>(AbstractKafkaConfig.CONFIG_DEF.names());
        // The StandardAuthorizer's own settings, read by it rather than by KafkaConfig.
        known.addAll(List.of("super.users", "allow.everyone.if.no.acl.found"));
        for (var broker : brokers(compose()).entrySet()) {
            Properties props = serverProperties(broker.getValue());
            for (String name : props.stringPropertyNames()) {
                assertTrue(known.contains(name) || name.startsWith("listener.name."),
                        broker.getKey() + ": " + name + " is no Kafka broker setting (a misspelt variable?)");
            }
            KafkaConfig config = KafkaConfig.fromProps(props);
            assertEquals(Integer.parseInt(env(broker.getValue(), "KAFKA_NODE_ID")), config.nodeId());
        }
    }

    @Test
    void everyListenerAuthenticatesAndWhatNoAclAllowsIsRefused() throws IOException {
        Map<String, Map<String, String>> jaas = jaasSections();
        for (var broker : brokers(compose()).entrySet()) {
            JsonNode node = broker.getValue();
            Map<String, String> protocols = pairs(env(node, "KAFKA_LISTENER_SECURITY_PROTOCOL_MAP"), ":");
            String controller = env(node, "KAFKA_CONTROLLER_LISTENER_NAMES");
            for (String listener : listeners(env(node, "KAFKA_LISTENERS")).keySet()) {
                assertTrue(protocols.get(listener).startsWith("SASL_"), broker.getKey() + " " + listener);
                String mechanisms = env(node, "KAFKA_LISTENER_NAME_" + listener + "_SASL_ENABLED_MECHANISMS");
                String mechanism = mechanisms.isEmpty() ? env(node, "KAFKA_SASL_ENABLED_MECHANISMS") : mechanisms;
                String module = jaas.getOrDefault(listener.toLowerCase(Locale.ROOT), Map.of()).get("module");
                if (listener.equals(controller)) {
                    assertEquals("PLAIN", mechanism, "KRaft's controller listener takes no SCRAM");
                    assertEquals("org.apache.kafka.common.security.plain.PlainLoginModule", module);
                } else {
                    assertEquals("SCRAM-SHA-512", mechanism, broker.getKey() + " " + listener + " is for clients");
                    assertEquals("org.apache.kafka.common.security.scram.ScramLoginModule", module, listener);
                }
            }
            assertEquals("org.apache.kafka.metadata.authorizer.StandardAuthorizer",
                    env(node, "KAFKA_AUTHORIZER_CLASS_NAME"));
            assertEquals("false", env(node, "KAFKA_ALLOW_EVERYONE_IF_NO_ACL_FOUND"));
            assertEquals("false", env(node, "KAFKA_UNCLEAN_LEADER_ELECTION_ENABLE"));
            assertEquals("-Djava.security.auth.login.config=" + COMPOSE_MOUNT + "kafka-jaas.conf",
                    env(node, "KAFKA_OPTS"));
        }
    }

    @Test
    void onlyTheClusterItselfAndItsAdminAreSuperUsers() throws IOException {
        JsonNode compose = compose();
        Map<String, Map<String, String>> jaas = jaasSections();
        JsonNode setup = compose.path("services").path("kafka-setup");
        Set<String> expected = Set.of("User:" + env(setup, "KAFKA_SASL_USERNAME"),
                "User:" + jaas.get("broker").get("username"), "User:" + jaas.get("controller").get("username"));
        for (var broker : brokers(compose).entrySet()) {
            Set<String> superUsers = Set.of(env(broker.getValue(), "KAFKA_SUPER_USERS").split(";"));
            assertEquals(expected, superUsers, broker.getKey());
            for (String name : principals(setup).allNames()) {
                assertFalse(superUsers.contains("User:" + name), name + " is held to its ACLs");
            }
        }
    }

    @Test
    void topicsKeepThreeCopiesAndNeedTwoInSync() throws IOException {
        JsonNode compose = compose();
        for (var broker : brokers(compose).entrySet()) {
            JsonNode node = broker.getValue();
            for (String name : List.of("KAFKA_DEFAULT_REPLICATION_FACTOR", "KAFKA_OFFSETS_TOPIC_REPLICATION_FACTOR",
                    "KAFKA_TRANSACTION_STATE_LOG_REPLICATION_FACTOR")) {
                assertEquals("3", env(node, name), broker.getKey() + " " + name);
            }
            assertEquals("2", env(node, "KAFKA_MIN_INSYNC_REPLICAS"), broker.getKey());
            assertEquals("2", env(node, "KAFKA_TRANSACTION_STATE_LOG_MIN_ISR"), broker.getKey());
        }
        List<String> clients = new ArrayList<>(SERVICE_ROLES.keySet());
        clients.add("kafka-setup");
        for (String client : clients) {
            JsonNode service = compose.path("services").path(client);
            assertEquals("3", env(service, "KAFKA_REPLICATION_FACTOR"), client);
            assertEquals("2", env(service, "KAFKA_MIN_INSYNC_REPLICAS"), client);
            assertEquals("3", env(service, "KAFKA_TOPIC_PARTITIONS"), client);
        }
    }

    @Test
    void eachServiceAuthenticatesAsItsOwnPrincipalOnEveryBroker() throws IOException {
        JsonNode compose = compose();
        Set<String> clientListeners = new HashSet<>();
        brokers(compose).values().forEach(b -> clientListeners.add(
                listeners(env(b, "KAFKA_ADVERTISED_LISTENERS")).get("CLIENT")));
        assertEquals(3, clientListeners.size());
        Set<String> users = new HashSet<>();
        for (var role : SERVICE_ROLES.entrySet()) {
            JsonNode service = compose.path("services").path(role.getKey());
            assertEquals("SASL_PLAINTEXT", env(service, "KAFKA_SECURITY_PROTOCOL"), role.getKey());
            assertEquals("SCRAM-SHA-512", env(service, "KAFKA_SASL_MECHANISM"), role.getKey());
            assertEquals(clientListeners, Set.of(env(service, "KAFKA_BOOTSTRAP_SERVERS").split(",")), role.getKey());
            String user = env(service, "KAFKA_SASL_USERNAME");
            users.add(user);
            KafkaPrincipals.Services named = principals(service).services();
            assertEquals(switch (role.getValue()) {
                case "ingest" -> named.ingest();
                case "worker" -> named.worker();
                default -> named.reconciler();
            }, user, role.getKey() + " is the principals file's " + role.getValue());
            assertEquals("config/compose/secrets/" + user + ".password", env(service, "KAFKA_SASL_PASSWORD_FILE"));
        }
        assertEquals(3, users.size(), "three principals, not one shared: " + users);
        KafkaPrincipals principals = principals(compose.path("services").path("ingest-service"));
        assertEquals(KafkaPrincipals.OwnerFrom.PRINCIPAL, principals.ownerFrom());
        assertEquals(Set.of("alice"), principals.producers().get("shop-backend"));
        assertEquals(1, principals.analysts().size());
    }

    @Test
    void everyUserHasAPasswordAndItsCopiesAgree() throws IOException {
        JsonNode compose = compose();
        JsonNode setup = compose.path("services").path("kafka-setup");
        Map<String, Map<String, String>> jaas = jaasSections();
        List<String> users = new ArrayList<>(principals(setup).allNames());
        users.addAll(List.of(env(setup, "KAFKA_SASL_USERNAME"), jaas.get("broker").get("username")));
        for (var broker : brokers(compose).entrySet()) {
            Set<String> scram = Set.of(env(broker.getValue(), "COMPOSE_SCRAM_USERS").split(" "));
            assertTrue(scram.containsAll(users), broker.getKey() + " creates " + scram + ", needs " + users);
            for (String user : scram) {
                assertTrue(password(user).matches("[A-Za-z0-9._-]+"), user + ": what kafka-start.sh accepts");
            }
            // Every file a node's command, healthcheck or settings names is in config/compose.
            Matcher mounted = Pattern.compile(Pattern.quote(COMPOSE_MOUNT) + "([\\w.-]+)")
                    .matcher(broker.getValue().toString());
            int files = 0;
            while (mounted.find()) {
                files++;
                assertTrue(Files.isRegularFile(COMPOSE_DIR.resolve(mounted.group(1))), mounted.group());
            }
            assertEquals(3, files, "kafka-start.sh, kafka-admin.properties, kafka-jaas.conf");
            assertTrue(broker.getValue().path("volumes").toString().contains("./config/compose:" + COMPOSE_MOUNT
                    .substring(0, COMPOSE_MOUNT.length() - 1) + ":ro"), broker.getKey());
        }
        assertEquals(password("broker"), jaas.get("broker").get("password"), "kafka-jaas.conf's broker password");
        assertEquals(jaas.get("controller").get("password"),
                jaas.get("controller").get("user_" + jaas.get("controller").get("username")));
        Properties admin = new Properties();
        admin.load(new StringReader(Files.readString(COMPOSE_DIR.resolve("kafka-admin.properties"))));
        assertTrue(admin.getProperty("sasl.jaas.config").contains("username=\"" + env(setup, "KAFKA_SASL_USERNAME")
                + "\" password=\"" + password("admin") + "\""), "kafka-admin.properties is kafka-setup's admin");
        compose.path("services").fields().forEachRemaining(s -> s.getValue().path("environment").fields()
                .forEachRemaining(e -> {
                    if (e.getKey().endsWith("_PASSWORD_FILE")) {
                        assertTrue(Files.isRegularFile(ROOT.resolve(e.getValue().asText())),
                                s.getKey() + " " + e.getKey());
                    }
                }));
    }

    @Test
    void kafkaSetupAppliesTheAclsOnceTheBrokersAreUpAndBeforeAnyServiceStarts() throws IOException {
        JsonNode compose = compose();
        JsonNode setup = compose.path("services").path("kafka-setup");
        List<String> command = new ArrayList<>();
        setup.path("command").forEach(part -> command.add(part.asText()));
        assertEquals(List.of("java", "-jar"), command.subList(0, 2));
        String[] args = command.subList(3, command.size()).toArray(String[]::new);
        PrintStream quiet = new PrintStream(PrintStream.nullOutputStream());
        ParseResult parsed = OnejobMain.commandLine(new CliContext(Map.of(), quiet, quiet)).parseArgs(args);
        assertEquals("acls", parsed.subcommand().subcommand().commandSpec().name(), Arrays.toString(args));
        assertTrue(parsed.subcommand().subcommand().hasMatchedOption("--apply"), Arrays.toString(args));
        for (String broker : brokers(compose).keySet()) {
            assertEquals("service_healthy", setup.path("depends_on").path(broker).path("condition").asText());
        }
        for (String service : SERVICE_ROLES.keySet()) {
            JsonNode node = compose.path("services").path(service);
            assertEquals("service_completed_successfully",
                    node.path("depends_on").path("kafka-setup").path("condition").asText(), service);
            assertEquals(env(setup, "KAFKA_PRINCIPALS_FILE"), env(node, "KAFKA_PRINCIPALS_FILE"), service);
        }
        assertNotEquals("", env(setup, "ONEJOB_DATA_DIR"), "never reads the host's ./onejob dev stack file");
    }

    @Test
    void eachNodeKeepsItsDataOnItsOwnVolumeAndAdvertisesItsPublishedPort() throws IOException {
        JsonNode compose = compose();
        Set<String> volumes = new HashSet<>();
        for (var broker : brokers(compose).entrySet()) {
            JsonNode node = broker.getValue();
            String logDirs = env(node, "KAFKA_LOG_DIRS");
            String volume = null;
            for (JsonNode mount : node.path("volumes")) {
                String[] parts = mount.asText().split(":");
                if (logDirs.startsWith(parts[1])) {
                    volume = parts[0];
                }
            }
            assertTrue(volume != null && compose.path("volumes").has(volume), broker.getKey() + " " + logDirs);
            volumes.add(volume);
            assertEquals(1, node.path("ports").size(), broker.getKey());
            String[] published = node.path("ports").get(0).asText().split(":");
            String advertised = listeners(env(node, "KAFKA_ADVERTISED_LISTENERS")).get("HOST");
            assertEquals("127.0.0.1:" + published[1], advertised, broker.getKey());
            assertEquals(":" + published[2], listeners(env(node, "KAFKA_LISTENERS")).get("HOST"), broker.getKey());
        }
        assertEquals(3, volumes.size(), "a volume of its own per node: " + volumes);
    }

    @Test
    void postgresWantsAPasswordAndTheServicesHaveIt() throws IOException {
        JsonNode compose = compose();
        JsonNode postgres = compose.path("services").path("postgres").path("environment");
        assertFalse(postgres.has("POSTGRES_HOST_AUTH_METHOD"), "no trust authentication");
        String password = postgres.path("POSTGRES_PASSWORD").asText();
        assertFalse(password.isEmpty());
        for (String service : SERVICE_ROLES.keySet()) {
            assertEquals(password, env(compose.path("services").path(service), "DATABASE_PASSWORD"), service);
        }
    }

    @Test
    void theTokensFileLetsItsDocumentedTokenIn() throws IOException {
        JsonNode ingest = compose().path("services").path("ingest-service");
        Tokens tokens = Tokens.load(ROOT.resolve(ingest.path("environment").path("TOKENS_FILE").asText()));
        assertEquals("alice", tokens.authenticate("compose-alice-token").orElseThrow().ownerId());
        assertTrue(tokens.authenticate("compose-ops-token").isPresent());
        assertTrue(Files.readString(ROOT.resolve("docker-compose.yml")).contains("compose-alice-token"),
                "the compose file says which token to use");
    }
}
