package dev.onejob.ingest.http;

import static dev.onejob.ingest.http.Route.Role.CALLER;
import static dev.onejob.ingest.http.Route.Role.OPERATE;
import static dev.onejob.ingest.http.Route.Role.SUBMIT;

import dev.onejob.core.certification.CertificationRequests;
import dev.onejob.core.certification.CertificationStore;
import dev.onejob.core.config.Providers;
import dev.onejob.core.contract.Contracts;
import dev.onejob.core.ledger.BillingStore;
import dev.onejob.core.ledger.Ledger;
import dev.onejob.core.ledger.LedgerQueries;
import dev.onejob.core.ledger.ProviderGate;
import dev.onejob.ingest.IngestConfig;
import dev.onejob.ingest.IngestMetrics;
import dev.onejob.ingest.JobRequests;
import dev.onejob.ingest.Principal;
import dev.onejob.ingest.Tokens;
import io.micrometer.core.instrument.Gauge;
import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.function.Supplier;

/**
 * The ingest service's HTTP API, wired by hand: group commit, admission, the job watches, the APIs, their gauges,
 * the route table (every route written once, here) and the {@link ApiServer} that serves it.
 */
public final class IngestApi implements AutoCloseable {
    private final ServerThreads threads = new ServerThreads();
    private final AttemptChunks chunks = new AttemptChunks();
    private final Ledger ledger;
    private final IngestMetrics metrics;
    private final GroupCommit groupCommit;
    private final Admission admission;
    private final JobWatch watch;
    private final RouteTable table;
    private final ApiServer server;

    /**
     * What the write side needs: the ledger, the request rules, the gate, the certification requests (the workers
     * run them) and runs, the tokens, the metrics.
     */
    public record Parts(Ledger ledger, JobRequests requests, ProviderGate gate,
                        CertificationRequests certificationRequests, CertificationStore certifications, Tokens tokens,
                        IngestMetrics metrics) {
    }

    /** What the read side needs: the ledger's queries and the configuration people look at. */
    public record Views(LedgerQueries queries, Providers providers, Contracts contracts, BillingStore billing) {
    }

    /** {@code readiness}: null when ready, otherwise what is not; {@code backlog}: the workers' backlog. */
    public IngestApi(IngestConfig config, Parts parts, Views views, Supplier<String> readiness,
                     Supplier<Admission.BacklogReading> backlog) {
        FrontDoor frontDoor = config.frontDoor();
        int threadCount = config.http().threads();
        this.ledger = parts.ledger();
        this.metrics = parts.metrics();
        this.groupCommit = new GroupCommit(parts.ledger(), frontDoor.groupCommitters(), frontDoor.groupCommitMax(),
                metrics.registry());
        // Tasks beyond one per thread: a burst the threads absorb at once is not a queue (and right after an idle
        // second the rate requests finish at is too low to judge one by).
        this.admission = new Admission(frontDoor.shedQueueWait(), frontDoor.shedBacklog(),
                () -> Math.max(0, threads.queued() - threadCount), groupCommit, backlog);
        this.watch = new JobWatch(views.queries(), threads, frontDoor.waitRecheck());
        gauges();
        this.table = new RouteTable(routes(config, parts, views, new ServiceEndpoints(readiness, metrics.registry())));
        this.server = new ApiServer(config.http(), config.maxBodyBytes(), table, parts.tokens(), admission,
                new OwnerCaps(frontDoor.perOwner()), metrics, threads);
    }

    private void gauges() {
        Gauge.builder("onejob_http_server_queued_tasks", threads::queued)
                .description("tasks waiting for a server thread (requests to read or run, answers to send)")
                .register(metrics.registry());
        Gauge.builder("onejob_http_submit_queue", groupCommit::waiting)
                .description("HTTP submissions waiting for their group commit").register(metrics.registry());
        Gauge.builder("onejob_http_watching", watch::watching)
                .description("requests following a job: waits and event streams").register(metrics.registry());
    }

    /**
     * Every route this server answers: exactly the paths of the OpenAPI document (RoutesIT compares the two and sends
     * each documented operation to see it routed), each with who may call it (the authorisation suite walks them).
     */
    private List<Route> routes(IngestConfig config, Parts parts, Views views, ServiceEndpoints service) {
        int maxBody = config.maxBodyBytes();
        Duration maxWait = config.frontDoor().maxWait();
        JobsApi jobs = new JobsApi(parts.ledger(), groupCommit::submit, admission::admitSubmission, parts.requests(),
                parts.gate(), metrics, maxBody, new JobWaits(watch, views.queries()), maxWait);
        DropInApi dropIn = new DropInApi(jobs, parts.requests(), views.providers(), views.queries(),
                new JobWaits(watch, views.queries()), new DropInStreams(watch, chunks), metrics, maxBody, maxWait);
        AttemptsApi attempts = new AttemptsApi(parts.ledger(), jobs, parts.gate(), metrics, maxBody);
        CertificationsApi certifications = new CertificationsApi(parts.certificationRequests(),
                parts.certifications(), views.providers(), views.contracts(), watch, config.certifyWait(), maxBody);
        EventsApi events = new EventsApi(views.queries(), watch);
        FindApi find = new FindApi(views.queries(), parts.certifications(), views.providers(), views.contracts(),
                metrics, watch, parts.requests().cooldowns());
        UsageApi usage = new UsageApi(views.billing(), Clock.systemUTC());
        ModelsApi models = new ModelsApi(views.providers(), Instant.now());
        return List.of(
                Route.open("GET", "/health", service::ready),
                Route.open("GET", "/health/live", service::live),
                Route.open("GET", "/health/ready", service::ready),
                Route.api("GET", "/metrics", OPERATE, service::metrics).scrape().forbidding("the service's metrics "
                        + "span every owner's traffic: reading them needs the 'operate' role"),
                Route.open("GET", "/openapi.yaml", service::openApi),
                Route.open("GET", "/console", service::console),
                Route.open("GET", "/console/{file}", service::console),
                Route.api("GET", "/v1/jobs", CALLER, (x, c) -> {
                    if (Exchanges.query(x).containsKey("idempotency_key")) {
                        jobs.findByKey(x, c.caller());
                    } else {
                        find.jobs(x, c.caller());
                    }
                }),
                Route.api("POST", "/v1/jobs", SUBMIT, (x, c) -> jobs.submit(x, c.caller(), threads, c.later())),
                Route.api("GET", "/v1/jobs/{id}", CALLER, (x, c) -> jobs.get(x, readerOf(c.caller(), c.parameter()),
                        c.parameter(), c.later())),
                Route.api("POST", "/v1/jobs/{id}/attempts", SUBMIT, (x, c) -> attempts.newAttempt(x, c.caller(),
                        c.parameter())),
                Route.api("POST", "/v1/jobs/{id}/cancel", SUBMIT, (x, c) -> jobs.cancel(x, c.caller(),
                        c.parameter())),
                Route.api("GET", "/v1/jobs/{id}/events", CALLER, (x, c) -> events.events(x,
                        readerOf(c.caller(), c.parameter()), c.parameter(), c.later())),
                Route.api("GET", "/v1/attempts", CALLER, (x, c) -> find.attempts(x, c.caller())),
                Route.api("POST", "/v1/attempts/{id}/resolve", OPERATE, (x, c) -> attempts.resolve(x, c.caller(),
                        c.parameter())),
                Route.api("GET", "/v1/races", CALLER, (x, c) -> find.races(x, c.caller())),
                Route.api("GET", "/v1/providers", CALLER, (x, c) -> find.providers(x, c.caller())),
                Route.api("GET", "/v1/contracts", CALLER, (x, c) -> find.contracts(x)),
                Route.api("GET", "/v1/stats", OPERATE, (x, c) -> find.stats(x)).forbidding("the service's counters "
                        + "span every owner's jobs: reading them needs the 'operate' role"),
                Route.api("GET", "/v1/usage", CALLER, (x, c) -> usage.usage(x, c.caller())),
                Route.api("GET", "/v1/whoami", CALLER, (x, c) -> find.whoami(x, c.caller())),
                Route.api("GET", "/v1/certifications", CALLER, (x, c) -> certifications.list(x)),
                Route.api("POST", "/v1/certifications", OPERATE, (x, c) -> certifications.certify(x, c.caller(),
                        c.later())),
                providerRoute("POST", DropInApi.CHAT_COMPLETIONS, (x, c) -> dropIn.call(x, c.caller(),
                        DropInApi.OPENAI, threads, c.later())),
                providerRoute("POST", DropInApi.MESSAGES, (x, c) -> dropIn.call(x, c.caller(),
                        DropInApi.ANTHROPIC, threads, c.later())),
                providerRoute("GET", "/v1/models", (x, c) -> models.list(x)),
                providerRoute("GET", "/v1/models/{model}", (x, c) -> models.retrieve(x, c.parameter())));
    }

    /**
     * A route of the provider-compatible API (role submit): every answer carries a request id, and its errors are
     * shaped as the SDKs read them ({@link DropInProblems#shaped}).
     */
    private static Route providerRoute(String method, String template, Route.Handler handler) {
        return Route.api(method, template, SUBMIT, (x, c) -> {
            DropInProblems.requestId(x);
            handler.handle(x, c);
        }).shapingErrors(DropInProblems::shaped);
    }

    /**
     * Who reads a job: its owner, or an operator, who may read every owner's jobs (the console's job pages); an
     * operator reading another owner's job acts as that owner for the read alone, never for a write.
     */
    private Principal readerOf(Principal caller, String jobId) {
        if (!caller.may(Principal.OPERATE)) {
            return caller;
        }
        try {
            return ledger.lookups().job(UUID.fromString(jobId))
                    .map(job -> new Principal(job.ownerId(), caller.roles())).orElse(caller);
        } catch (IllegalArgumentException e) {
            return caller;
        }
    }

    public void start() throws IOException {
        server.start();
    }

    public int port() {
        return server.port();
    }

    /** Every route this API answers, in the order written. */
    public List<Route> routes() {
        return table.routes();
    }

    /** Where this instance's {@code attempt-chunks} subscription hands the pieces of answer it reads. */
    public AttemptChunks chunks() {
        return chunks;
    }

    /** Why the Kafka intake should wait now, or empty ({@link Admission#kafkaIntakeBrake}). */
    public Optional<String> kafkaIntakeBrake() {
        return admission.kafkaIntakeBrake();
    }

    /** Jobs whose results were just published: wakes whatever of this instance waits on them. */
    public void jobsFinished(Collection<UUID> jobIds) {
        metrics.finished(jobIds.size());
        watch.changed(jobIds);
    }

    @Override
    public void close() {
        server.close();
        groupCommit.close();
        admission.close();
        watch.close();
    }
}
