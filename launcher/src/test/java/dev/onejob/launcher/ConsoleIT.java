package dev.onejob.launcher;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.onejob.core.json.Json;
import dev.onejob.simulator.Behaviour;
import java.io.IOException;
import java.math.BigDecimal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.logging.Level;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.TakesScreenshot;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.logging.LogEntry;
import org.openqa.selenium.logging.LogType;
import org.openqa.selenium.logging.LoggingPreferences;
import org.openqa.selenium.support.ui.ExpectedConditions;
import org.openqa.selenium.support.ui.Select;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * The operator console in a real browser: the distribution's headless Chromium, driven by Selenium through its
 * chromedriver, against the whole pipeline in this JVM. An owner signs in, submits a job and watches it finish live;
 * an operator finds an UNKNOWN attempt in the queue, resolves it and watches the failover win (and the late answer
 * lose its race); the list filters; another owner's console never shows the job; a token the API stops accepting
 * returns to sign-in. No page logs a Content-Security-Policy violation, and the token is never in a URL or a cookie.
 * Each page's screenshot is written to {@code target/console-screenshots} (the ones in {@code docs/console} are
 * copies).
 */
class ConsoleIT {
    private static final Path CHROMIUM = Path.of("/usr/bin/chromium");
    private static final Path CHROMEDRIVER = Path.of("/usr/bin/chromedriver");
    private static final Path SCREENSHOTS = Path.of("target", "console-screenshots");
    private static PipelineFixture pipeline;
    private static WebDriver browser;
    private static String base;

    @BeforeAll
    static void startThePipelineAndABrowser() throws IOException {
        ensureChromium();
        pipeline = new PipelineFixture();
        base = "http://127.0.0.1:" + pipeline.stack.httpPort();
        ChromeOptions options = new ChromeOptions();
        options.setBinary(CHROMIUM.toFile());
        // Root in a container has no sandbox to give Chromium; /dev/shm may be small.
        options.addArguments("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1400,1000",
                "--disable-gpu", "--no-first-run", "--disable-extensions");
        LoggingPreferences logs = new LoggingPreferences();
        logs.enable(LogType.BROWSER, Level.ALL);
        options.setCapability("goog:loggingPrefs", logs);
        ChromeDriverService service = new ChromeDriverService.Builder().usingDriverExecutable(CHROMEDRIVER.toFile())
                .usingAnyFreePort().build();
        browser = new ChromeDriver(service, options);
        browser.manage().timeouts().pageLoadTimeout(Duration.ofSeconds(30));
        Files.createDirectories(SCREENSHOTS);
        // backup certified for the contract as it is, so a failover to it is allowed
        var certified = pipeline.send("POST", "/v1/certifications", "ops", Map.of(),
                "{\"provider\":\"backup\",\"contract\":\"sentiment\"}");
        assertEquals(200, certified.statusCode(), certified.body());
    }

    /**
     * The distribution's Chromium and chromedriver, installed with apt-get when missing (as .ci/run does), so
     * {@code mvn -B verify} needs nothing installed by hand; without root, the failure says what to install.
     */
    private static void ensureChromium() {
        if (Files.isExecutable(CHROMIUM) && Files.isExecutable(CHROMEDRIVER)) {
            return;
        }
        String why = "ConsoleIT needs the distribution's Chromium and its driver at " + CHROMIUM + " and "
                + CHROMEDRIVER + ": apt-get install chromium chromium-driver";
        if (!"root".equals(System.getProperty("user.name"))) {
            throw new IllegalStateException(why + " (not root here, so the test cannot install them)");
        }
        for (List<String> step : List.of(List.of("apt-get", "update"), List.of("apt-get", "install", "-y",
                "--no-install-recommends", "chromium", "chromium-driver"))) {
            try {
                ProcessBuilder command = new ProcessBuilder(step).redirectErrorStream(true)
                        .redirectOutput(ProcessBuilder.Redirect.DISCARD);
                command.environment().put("DEBIAN_FRONTEND", "noninteractive");
                int exit = command.start().waitFor();
                if (exit != 0) {
                    throw new IllegalStateException(why + " (" + String.join(" ", step) + " exited " + exit + ")");
                }
            } catch (IOException e) {
                throw new IllegalStateException(why + " (" + e.getMessage() + ")", e);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(why, e);
            }
        }
    }

    @AfterAll
    static void stopThem() {
        if (browser != null) {
            browser.quit();
        }
        if (pipeline != null) {
            pipeline.close();
        }
    }

    @AfterEach
    void noPageBrokeThePolicyAndTheSimulatorsAreReset() {
        pipeline.stack.services().simulators().values().forEach(sim -> sim.resetBehaviours());
        List<String> violations = browser.manage().logs().get(LogType.BROWSER).getAll().stream()
                .map(LogEntry::getMessage).filter(m -> m.contains("Content Security Policy")
                        || m.contains("Content-Security-Policy")).toList();
        assertEquals(List.of(), violations, "the console broke its own Content-Security-Policy");
    }

    @Test
    void anOwnerSubmitsAJobFromTheConsoleAndWatchesItFinishLive() throws IOException {
        // given alice signed in
        signIn("alice");

        // when she submits a job from the console (its key comes prefilled)
        go("#/jobs");
        WebElement key = waitFor(By.id("submit-key"));
        String idempotencyKey = "console-" + UUID.randomUUID();
        key.clear();
        key.sendKeys(idempotencyKey);
        browser.findElement(By.id("submit-job")).click();

        // then the console opens the job's page and follows it live until it SUCCEEDED
        new WebDriverWait(browser, Duration.ofSeconds(15)).until(d -> d.getCurrentUrl().contains("#/jobs/"));
        String jobId = browser.getCurrentUrl().substring(browser.getCurrentUrl().indexOf("#/jobs/") + 7);
        awaitAttribute(By.id("job-status"), "data-status", "SUCCEEDED", Duration.ofSeconds(30));
        waitFor(By.cssSelector("#job-timeline li[data-type='job.finished']"));
        assertEquals(List.of("attempt.created", "attempt.started", "attempt.succeeded", "job.finished"),
                timelineTypes());
        assertEquals(idempotencyKey, browser.findElement(By.id("job-key")).getText());
        JsonNode job = pipeline.job(jobId);
        assertEquals("SUCCEEDED", job.path("status").asText());
        assertEquals(idempotencyKey, job.path("idempotency_key").asText());
        screenshot("job");

        // and the token is in this tab's session storage only: never in a URL, a cookie or local storage
        String token = pipeline.tokens.get("alice");
        assertFalse(browser.getCurrentUrl().contains(token));
        assertEquals(0, browser.manage().getCookies().size());
        assertEquals(token, script("return sessionStorage.getItem('onejob.token')"));
        assertEquals(0L, script("return localStorage.length"));

        // and the list filters: by key prefix and status it is the one row; as FAILED it is not there
        go("#/jobs");
        setFilters("SUCCEEDED", idempotencyKey);
        awaitRows(By.cssSelector("#jobs-table tbody tr"), List.of(jobId), Duration.ofSeconds(10));
        screenshot("jobs");
        setFilters("FAILED", idempotencyKey);
        awaitRows(By.cssSelector("#jobs-table tbody tr"), List.of(), Duration.ofSeconds(10));

        // and the call the job made is on the usage page, in alice's own total, as GET /v1/usage has it
        go("#/usage");
        JsonNode billed = pipeline.usage("alice").path("total");
        assertTrue(billed.path("calls").asLong() >= 1, billed.toString());
        assertTrue(new BigDecimal(billed.path("cost_usd").asText()).signum() > 0, billed.toString());
        new WebDriverWait(browser, Duration.ofSeconds(15)).until(d -> d.findElements(By.cssSelector("#usage-total td"))
                .stream().findFirst().map(td -> td.getText().equals(pipeline.usage("alice").path("total")
                        .path("calls").asText())).orElse(false));
        assertEquals("owner alice", browser.findElement(By.id("usage-scope")).getText());
        screenshot("usage");
    }

    @Test
    void anOperatorResolvesAnUnknownAttemptFromTheQueueAndWatchesTheFailoverWin() throws IOException {
        // given a primary that answers only after 13 s (soft timeout 1 s, hard 15 s): the attempt goes UNKNOWN
        pipeline.simulator("primary").setDefaultBehaviour(Behaviour.hangThenAnswer(Duration.ofSeconds(13)));
        String jobId = submitAsAlice("queue-" + UUID.randomUUID());
        JsonNode unknown = pipeline.awaitStatus(jobId, "UNKNOWN", Duration.ofSeconds(20));
        String attemptA = unknown.path("attempts").get(0).path("id").asText();

        // when an operator finds it in the UNKNOWN queue and resolves it FAILED with a reason
        signIn("ops");
        go("#/unknown");
        By row = By.cssSelector("#unknown-table tr[data-attempt-id='" + attemptA + "']");
        waitFor(row);
        screenshot("unknown");
        browser.findElement(By.id("resolve-reason")).sendKeys("primary is hanging");
        browser.findElement(row).findElement(By.cssSelector("button.resolve-failed")).click();

        // then the failover to backup wins, live on the job's page, with the resolution in the timeline
        go("#/jobs/" + jobId);
        awaitAttribute(By.id("job-status"), "data-status", "SUCCEEDED", Duration.ofSeconds(30));
        JsonNode job = pipeline.job(jobId);
        assertEquals(2, job.path("attempts").size());
        assertEquals(job.path("attempts").get(1).path("id").asText(), job.path("completed_by").asText());
        assertEquals("backup", job.path("attempts").get(1).path("provider").asText());
        assertEquals("ops", job.path("operator_actions").get(0).path("actor").asText());
        waitFor(By.cssSelector("#job-timeline li[data-type='operator.action']"));
        assertTrue(timelineTypes().containsAll(List.of("attempt.unknown", "attempt.failed", "operator.action",
                "attempt.succeeded", "job.finished")), timelineTypes().toString());

        // and when A's late answer arrives it is discarded, on the timeline and in the races feed
        waitFor(By.cssSelector("#job-timeline li[data-type='attempt.discarded']"), Duration.ofSeconds(30));
        screenshot("job-failover");
        go("#/races");
        waitFor(By.cssSelector("#races-table tr[data-job-id='" + jobId + "']"), Duration.ofSeconds(15));
        screenshot("races");
    }

    @Test
    void anOperatorResolvesSeveralUnknownAttemptsAtOnce() {
        // given two jobs whose primary never answers and no fallback
        pipeline.simulator("primary").setDefaultBehaviour(Behaviour.hangForever());
        List<String> jobs = List.of(submitAsAlice("bulk-a-" + UUID.randomUUID(), false),
                submitAsAlice("bulk-b-" + UUID.randomUUID(), false));
        List<String> attempts = jobs.stream().map(id -> pipeline.awaitStatus(id, "UNKNOWN", Duration.ofSeconds(20))
                .path("attempts").get(0).path("id").asText()).toList();

        // when the operator selects both and resolves them CANCELLED together
        signIn("ops");
        go("#/unknown");
        for (String attempt : attempts) {
            waitFor(By.cssSelector("#unknown-table tr[data-attempt-id='" + attempt + "'] input.select-attempt"))
                    .click();
        }
        browser.findElement(By.id("resolve-reason")).sendKeys("primary is down, customer told");
        browser.findElement(By.id("bulk-resolve-cancelled")).click();

        // then both are resolved, and the queue no longer holds them
        new WebDriverWait(browser, Duration.ofSeconds(15)).until(ExpectedConditions.textToBePresentInElementLocated(
                By.id("bulk-result"), "2 resolved"));
        for (String jobId : jobs) {
            assertEquals("NEEDS_ACTION", pipeline.job(jobId).path("status").asText());
        }
        for (String attempt : attempts) {
            new WebDriverWait(browser, Duration.ofSeconds(10)).until(ExpectedConditions.numberOfElementsToBe(
                    By.cssSelector("#unknown-table tr[data-attempt-id='" + attempt + "']"), 0));
        }
    }

    @Test
    void anotherOwnersConsoleNeverShowsTheJob() throws IOException {
        // given alice's job
        String jobId = submitAsAlice("private-" + UUID.randomUUID());
        pipeline.awaitStatus(jobId, "SUCCEEDED", Duration.ofSeconds(20));

        // and bob's own job, created after it: once the list shows his, it was read after alice's existed
        var bobs = pipeline.send("POST", "/v1/jobs", "bob", Map.of("Idempotency-Key", "bobs-" + UUID.randomUUID()),
                "{\"contract\":\"sentiment\",\"variables\":{\"text\":\"fine\"},\"target\":\"primary\"}");
        assertEquals(201, bobs.statusCode(), bobs.body());
        String bobsJob = Json.parse(bobs.body()).path("id").asText();

        // when bob signs in and lists every job, then asks for alice's by its id
        signIn("bob");
        go("#/jobs");
        setFilters("", "");
        waitFor(By.cssSelector("#jobs-table tr[data-job-id='" + bobsJob + "']"));
        assertEquals(0, browser.findElements(By.cssSelector("#jobs-table tr[data-job-id='" + jobId + "']")).size());
        go("#/jobs/" + jobId);

        // then he is told there is no such job, and nothing of it is shown
        waitFor(By.id("error-text"));
        new WebDriverWait(browser, Duration.ofSeconds(10)).until(ExpectedConditions.textToBePresentInElementLocated(
                By.id("error-text"), "no such job"));
        assertFalse(browser.findElement(By.id("job-status")).getText().contains("SUCCEEDED"));
        assertEquals(0, browser.findElements(By.cssSelector("#job-timeline li")).size());
        screenshot("not-found");
    }

    @Test
    void aTokenTheApiNoLongerAcceptsReturnsToSignIn() throws IOException {
        // given a signed-in operator on the providers page, who re-certifies backup
        signIn("ops");
        go("#/providers");
        WebElement recertify = waitFor(By.cssSelector("button.recertify[data-provider='backup']"
                + "[data-contract='sentiment']"));
        recertify.click();
        new WebDriverWait(browser, Duration.ofSeconds(60)).until(ExpectedConditions.textToBePresentInElementLocated(
                By.id("providers-result"), "backup"));
        screenshot("providers");

        // when the token stops being accepted (here: replaced in session storage, as an expired one would be)
        script("sessionStorage.setItem('onejob.token', 'no-longer-valid')");
        go("#/unknown");

        // then the console returns to sign-in, saying why, and keeps no token
        waitFor(By.id("sign-in-error"));
        new WebDriverWait(browser, Duration.ofSeconds(10)).until(ExpectedConditions.visibilityOfElementLocated(
                By.id("sign-in-view")));
        assertTrue(browser.findElement(By.id("sign-in-error")).getText().contains("not accepted"),
                browser.findElement(By.id("sign-in-error")).getText());
        assertEquals(null, script("return sessionStorage.getItem('onejob.token')"));
        screenshot("sign-in");
    }

    /* ---------- helpers ---------- */

    private static String submitAsAlice(String key) {
        return submitAsAlice(key, true);
    }

    private static String submitAsAlice(String key, boolean withFallback) {
        var response = pipeline.send("POST", "/v1/jobs", "alice", Map.of("Idempotency-Key", key),
                "{\"contract\":\"sentiment\",\"variables\":{\"text\":\"I loved it\"},\"target\":\"primary\""
                        + (withFallback ? ",\"fallbacks\":[\"backup\"]" : "") + "}");
        assertEquals(201, response.statusCode(), response.body());
        return Json.parse(response.body()).path("id").asText();
    }

    private static void signIn(String owner) {
        browser.get(base + "/console/");
        script("sessionStorage.clear()");
        browser.navigate().refresh();
        WebElement token = waitFor(By.id("token"));
        token.sendKeys(pipeline.tokens.get(owner));
        browser.findElement(By.id("sign-in")).click();
        new WebDriverWait(browser, Duration.ofSeconds(10)).until(ExpectedConditions.textToBePresentInElementLocated(
                By.id("whoami"), owner));
    }

    private static void go(String hash) {
        script("location.hash = arguments[0]", hash);
    }

    private static void setFilters(String status, String keyPrefix) {
        new Select(waitFor(By.id("filter-status"))).selectByValue(status);
        WebElement prefix = browser.findElement(By.id("filter-key-prefix"));
        prefix.clear();
        prefix.sendKeys(keyPrefix);
        browser.findElement(By.id("apply-filters")).click();
    }

    private static void awaitRows(By rows, List<String> jobIds, Duration timeout) {
        new WebDriverWait(browser, timeout).until(d -> d.findElements(rows).stream()
                .map(r -> r.getAttribute("data-job-id")).toList().equals(jobIds));
    }

    private static void awaitAttribute(By element, String attribute, String value, Duration timeout) {
        new WebDriverWait(browser, timeout).until(ExpectedConditions.attributeToBe(element, attribute, value));
    }

    private static List<String> timelineTypes() {
        return browser.findElements(By.cssSelector("#job-timeline li")).stream()
                .map(li -> li.getAttribute("data-type")).toList();
    }

    private static WebElement waitFor(By element) {
        return waitFor(element, Duration.ofSeconds(15));
    }

    private static WebElement waitFor(By element, Duration timeout) {
        return new WebDriverWait(browser, timeout).until(ExpectedConditions.presenceOfElementLocated(element));
    }

    private static Object script(String code, Object... args) {
        return ((JavascriptExecutor) browser).executeScript(code, args);
    }

    private static void screenshot(String page) throws IOException {
        byte[] png = ((TakesScreenshot) browser).getScreenshotAs(OutputType.BYTES);
        Files.write(SCREENSHOTS.resolve(page + ".png"), png);
    }
}
