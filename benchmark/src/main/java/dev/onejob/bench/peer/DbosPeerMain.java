package dev.onejob.bench.peer;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.dbos.transact.DBOS;
import dev.dbos.transact.StartWorkflowOptions;
import dev.dbos.transact.config.DBOSConfig;
import dev.dbos.transact.workflow.WorkflowHandle;
import dev.onejob.core.config.Env;
import dev.onejob.core.contract.Contract;
import dev.onejob.core.contract.Contracts;
import dev.onejob.core.json.Json;
import dev.onejob.core.service.AsyncPool;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;

/**
 * The peer the benchmark compares onejob with: DBOS Transact for Java on the same PostgreSQL, in its own process.
 * {@code POST /v1/jobs} (bearer token naming the owner, {@code Idempotency-Key}, the same JSON body as onejob's)
 * validates the variables against the contract, starts the workflow {@code runJob} with the workflow id
 * {@code owner:key} (DBOS's own idempotency: the same id is the same workflow, run once) and answers 200 with the
 * result when the workflow is done. Environment: {@code DATABASE_URL}, {@code DATABASE_USER},
 * {@code DATABASE_PASSWORD}, {@code PROVIDER_URL}, {@code PROVIDER_API_KEY}, {@code CONTRACTS_DIR},
 * {@code TOKENS_PLAIN} (a properties file owner=token), {@code HTTP_PORT}, {@code HTTP_THREADS}. Prints
 * {@code event=started url=...}.
 */
public final class DbosPeerMain {
    private DbosPeerMain() {
    }

    public static void main(String[] args) throws Exception {
        // The peer gets every setting onejob's services get: its JVM is measured beside theirs.
        AsyncPool.configure();
        System.setProperty("sun.net.httpserver.nodelay", "true");
        Map<String, String> env = System.getenv();
        DBOSConfig config = DBOSConfig.defaults("onejob-bench-peer")
                .withDatabaseUrl(env.get(Env.DATABASE_URL))
                .withDbUser(env.getOrDefault("DATABASE_USER", "postgres"))
                .withDbPassword(env.getOrDefault("DATABASE_PASSWORD", ""))
                .withAppVersion("bench")
                .disableAdminServer();
        DBOS dbos = new DBOS(config);
        ProviderStep provider = new ProviderStep(env.get("PROVIDER_URL"), env.getOrDefault("PROVIDER_API_KEY", ""),
                Contracts.load(Path.of(env.get(Env.CONTRACTS_DIR))));
        PeerJobs jobs = dbos.registerProxy(PeerJobs.class, new PeerJobsImpl(dbos, provider));
        dbos.launch();
        Map<String, String> owners = owners(Path.of(env.get("TOKENS_PLAIN")));
        int threads = Integer.parseInt(env.getOrDefault("HTTP_THREADS", "256"));
        HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1",
                Integer.parseInt(env.getOrDefault(Env.HTTP_PORT, "0"))), 1024);
        server.createContext("/v1/jobs", exchange -> handle(exchange, dbos, jobs, provider.contracts(), owners));
        server.setExecutor(Executors.newFixedThreadPool(threads));
        server.start();
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            server.stop(0);
            dbos.close();
            stopped.countDown();
        }, "dbos-peer-shutdown"));
        System.out.println("event=started service=dbos-peer url=http://127.0.0.1:" + server.getAddress().getPort()
                + " dbos_version=" + DBOS.version() + " http_threads=" + threads);
        System.out.flush();
        stopped.await();
    }

    private static void handle(HttpExchange exchange, DBOS dbos, PeerJobs jobs, Contracts contracts,
                               Map<String, String> owners) throws IOException {
        try {
            String auth = exchange.getRequestHeaders().getFirst("Authorization");
            String owner = auth == null ? null : owners.get(auth.replaceFirst("^Bearer ", ""));
            String key = exchange.getRequestHeaders().getFirst("Idempotency-Key");
            if (owner == null || key == null || !"POST".equals(exchange.getRequestMethod())) {
                send(exchange, owner == null ? 401 : 400, Json.object().put("error", "token and key required"));
                return;
            }
            String body = new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
            JsonNode request = Json.parse(body);
            Contract contract = contracts.find(request.path("contract").asText()).orElse(null);
            List<String> problems = contract == null ? List.of("unknown contract")
                    : contract.variableProblems(request.path("variables"));
            if (!problems.isEmpty()) {
                send(exchange, 422, Json.object().put("error", String.join("; ", problems)));
                return;
            }
            String workflowId = owner + ":" + key;
            WorkflowHandle<String, Exception> handle = dbos.startWorkflow(() -> jobs.runJob(owner, key, body),
                    new StartWorkflowOptions(workflowId));
            ObjectNode answer = Json.object().put("workflow_id", workflowId);
            answer.set("result", Json.parse(handle.getResult()));
            send(exchange, 200, answer);
        } catch (Exception e) {
            send(exchange, 500, Json.object().put("error", String.valueOf(e)));
        } finally {
            exchange.close();
        }
    }

    private static void send(HttpExchange exchange, int status, JsonNode body) throws IOException {
        byte[] bytes = Json.write(body).getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().set("Content-Type", "application/json");
        exchange.sendResponseHeaders(status, bytes.length);
        exchange.getResponseBody().write(bytes);
    }

    private static Map<String, String> owners(Path tokensFile) throws IOException {
        Properties tokens = new Properties();
        try (var in = Files.newBufferedReader(tokensFile)) {
            tokens.load(in);
        }
        Map<String, String> byToken = new HashMap<>();
        tokens.forEach((owner, token) -> byToken.put((String) token, (String) owner));
        return byToken;
    }
}
