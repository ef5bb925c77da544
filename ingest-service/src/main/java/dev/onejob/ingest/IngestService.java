package dev.onejob.ingest;

import dev.onejob.core.certification.CertificationGate;
import dev.onejob.core.certification.CertificationRequests;
import dev.onejob.core.certification.CertificationStore;
import dev.onejob.core.config.OwnerPolicies;
import dev.onejob.core.config.Providers;
import dev.onejob.core.contract.Contracts;
import dev.onejob.core.db.Database;
import dev.onejob.core.db.DatabaseConfig;
import dev.onejob.core.kafka.KafkaConfig;
import dev.onejob.core.kafka.KafkaPrincipals;
import dev.onejob.core.ledger.BillingStore;
import dev.onejob.core.ledger.KeyRetention;
import dev.onejob.core.ledger.Ledger;
import dev.onejob.core.ledger.LedgerQueries;
import dev.onejob.core.ledger.RefusalCounts;
import dev.onejob.core.outbox.OutboxHost;
import dev.onejob.core.outbox.OutboxRelay;
import dev.onejob.core.service.Closeables;
import dev.onejob.core.service.Loops;
import dev.onejob.core.service.ServiceMain;
import dev.onejob.ingest.http.AttemptBacklog;
import dev.onejob.ingest.http.IngestApi;
import dev.onejob.ingest.http.Route;
import dev.onejob.ingest.kafka.JobRequestConsumer;
import dev.onejob.ingest.kafka.TopicTail;
import java.io.IOException;
import java.sql.Connection;
import java.time.Clock;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.DescribeClusterOptions;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The ingest service's parts and their life cycle: the HTTP API, the {@code job-requests} consumer and the outbox
 * relay, over one database pool. It calls no provider and holds no provider key: certification requests go to the
 * workers through the outbox. {@link #start()} brings them up in order; {@link #close()} stops them in reverse.
 */
public final class IngestService implements ServiceMain.Service {
    private static final Logger log = LoggerFactory.getLogger(IngestService.class);

    private final IngestConfig config;
    private final Database database;
    private final OutboxRelay.Hooks relayHooks;
    private final IngestMetrics metrics = new IngestMetrics();
    private final Loops loops;
    private IngestApi api;
    /** The live subscriptions to job-results and attempt-chunks, each on its own thread. */
    private final List<TopicTail> tails = new ArrayList<>();
    private final List<Thread> tailThreads = new ArrayList<>();
    private Admin admin;
    private Database cooldownDatabase;

    private final Map<String, String> env;

    /**
     * {@code env} resolves {@code ${VAR}} references in the providers file; {@code onDeadLoop} is what happens when
     * the consumer or the relay dies ({@link Loops#EXIT} for a service run alone).
     */
    public IngestService(IngestConfig config, Database database, Map<String, String> env,
                         OutboxRelay.Hooks relayHooks, Consumer<String> onDeadLoop) {
        this.config = config;
        this.database = database;
        this.env = env;
        this.relayHooks = relayHooks;
        this.loops = new Loops(onDeadLoop);
    }

    @Override
    public void start() throws IOException {
        Contracts contracts = Contracts.load(config.contractsDir());
        Providers providers = Providers.load(config.providersFile(), env);
        Tokens tokens = Tokens.load(config.tokensFile());
        Ledger ledger = new Ledger(database);
        OwnerPolicies policies = config.ownersFile() == null ? OwnerPolicies.NONE
                : OwnerPolicies.load(config.ownersFile());
        CertificationStore certifications = new CertificationStore(database);
        CertificationGate gate = new CertificationGate(certifications, contracts, providers);
        // Its own connection: the once-a-second read must never take one of the pool the submissions wait for.
        DatabaseConfig pool = config.database();
        cooldownDatabase = Database.connect(new DatabaseConfig(pool.jdbcUrl(), pool.user(), pool.password(), 1,
                pool.timeouts()), config.instanceId() + "-cooldowns");
        ProviderCooldowns cooldowns = new ProviderCooldowns(new RefusalCounts(cooldownDatabase), providers,
                (contract, provider) -> gate.whyNot(contract, provider).isEmpty(), metrics.registry(),
                Clock.systemUTC());
        loops.start("provider-cooldowns", cooldowns);
        JobRequests requests = new JobRequests(contracts, providers, policies, Clock.systemUTC(),
                cooldowns, new OwnerRateLimit(config.frontDoor().submissionsPerOwnerPerSecond()));
        KafkaConfig kafka = config.kafka();
        admin = Admin.create(kafka.admin(config.instanceId() + "-admin"));

        KafkaPrincipals principals = config.principalsFile() == null ? KafkaPrincipals.NONE
                : KafkaPrincipals.load(config.principalsFile());
        if (config.relay()) {
            OutboxHost.start(loops, database, kafka, config.instanceId(), metrics.registry(),
                    relayHooks, config.outboxRetention());
            if (!config.archiveAfter().isZero()) {
                loops.start("key-retention", new KeyRetention(database, policies, config.archiveAfter(),
                        config.retentionEvery(), Clock.systemUTC()));
            }
        }
        api = new IngestApi(config, new IngestApi.Parts(ledger, requests, gate, new CertificationRequests(database),
                certifications, tokens, metrics), new IngestApi.Views(new LedgerQueries(database), providers, contracts,
                new BillingStore(database)), this::notReady, new AttemptBacklog(admin, AttemptBacklog.WORKER_GROUP));
        // After the API is built: the Kafka intake waits while the workers' backlog is over the API's half of it.
        IngestApi admitting = api;
        JobRequestConsumer consumer = new JobRequestConsumer(kafka, config.instanceId(), ledger, requests, metrics,
                principals, admitting::kafkaIntakeBrake);
        loops.start("job-requests-consumer", consumer);
        startTails(kafka, api);
        api.start();
        log.info("event=started service=ingest-service http={}://{}:{} kafka={} group={} relay={} contracts={} "
                        + "providers={}", config.http().tls() == null ? "http" : "https", config.http().host(),
                api.port(), kafka.bootstrapServers(), JobRequestConsumer.GROUP_ID, config.relay(), contracts.all().size(), providers.all().size());
    }

    /**
     * Positioned at the end of job-results before the API opens: a result published after any wait begins is one the
     * subscription reads. If Kafka is away now, it keeps trying; waits fall back on their rechecks. The same for the
     * pieces of streamed answers the drop-in streams relay.
     */
    private void startTails(KafkaConfig kafka, IngestApi waiting) {
        tail(TopicTail.jobResults(new KafkaConsumer<>(tailConsumer(kafka, "job-results"),
                new StringDeserializer(), new ByteArrayDeserializer()), waiting::jobsFinished), "job-results-tail");
        tail(TopicTail.attemptChunks(new KafkaConsumer<>(tailConsumer(kafka, "attempt-chunks"),
                new StringDeserializer(), new ByteArrayDeserializer()), waiting.chunks()::deliver),
                "attempt-chunks-tail");
    }

    private void tail(TopicTail tail, String name) {
        tail.assign();
        Thread thread = new Thread(tail, name);
        thread.setDaemon(true);
        thread.start();
        tails.add(tail);
        tailThreads.add(thread);
    }

    /** No group: every instance reads every partition, and commits nothing. */
    private Map<String, Object> tailConsumer(KafkaConfig kafka, String topic) {
        Map<String, Object> props = new HashMap<>(kafka.consumer("unused", config.instanceId()
                + "-" + topic));
        props.remove(ConsumerConfig.GROUP_ID_CONFIG);
        props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "latest");
        return props;
    }

    public int httpPort() {
        return api.port();
    }

    /** The routes this instance's HTTP API answers, as its route table writes them. */
    public List<Route> routes() {
        return api.routes();
    }

    /** Ready when every part runs and PostgreSQL and Kafka both answer; otherwise what is wrong. */
    private String notReady() {
        if (loops.dead().isPresent()) {
            return loops.dead().get();
        }
        try (Connection connection = database.dataSource().getConnection()) {
            if (!connection.isValid(2)) {
                return "PostgreSQL does not answer";
            }
        } catch (Exception e) {
            log.warn("event=readiness_postgres_failed error=\"{}\"", e.toString());
            return "PostgreSQL does not answer";
        }
        try {
            admin.describeCluster(new DescribeClusterOptions().timeoutMs(2000)).clusterId().get(3, TimeUnit.SECONDS);
        } catch (Exception e) {
            // Where Kafka is goes to the log, not to a public answer.
            log.warn("event=readiness_kafka_failed bootstrap_servers={} error=\"{}\"",
                    config.kafka().bootstrapServers(), e.toString());
            return "Kafka does not answer";
        }
        return null;
    }

    @Override
    public void close() {
        tails.forEach(TopicTail::close);
        for (Thread thread : tailThreads) {
            try {
                thread.join(5000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        Closeables.closeInOrder(api, loops, cooldownDatabase, admin);
    }
}
