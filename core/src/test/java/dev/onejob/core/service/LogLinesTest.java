package dev.onejob.core.service;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.joran.JoranConfigurator;
import ch.qos.logback.classic.util.LogbackMDCAdapter;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Every process logs through the logging module's {@code logback.xml}: one event is one line, whatever a value in
 * it holds, so a caller's value with a line break (a Kafka record's owner id, say) cannot forge a log line.
 */
class LogLinesTest {

    @Test
    void aValueWithLineBreaksAndControlCharactersStaysOnItsEventsLine() throws Exception {
        LoggerContext context = new LoggerContext();
        context.setMDCAdapter(new LogbackMDCAdapter());
        JoranConfigurator configurator = new JoranConfigurator();
        configurator.setContext(context);
        PrintStream stderr = System.err;
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
        try {
            configurator.doConfigure(Path.of("../logging/src/main/resources/logback.xml").toFile());
            context.getLogger("dev.onejob.Test").info("event=job_request owner={} request_id={}",
                    "alice\n12:00:00.000 [main] INFO  Forged - event=owner_deleted\r\n", "r\u0000\u001b[31m-1");
        } finally {
            context.stop();
            System.setErr(stderr);
        }
        List<String> lines = captured.toString(StandardCharsets.UTF_8).lines().toList();
        assertEquals(1, lines.size(), "one event, one line: " + lines);
        assertTrue(lines.get(0).contains("owner=alice\\n12:00:00.000 [main] INFO  Forged - event=owner_deleted\\n "
                + "request_id=r??[31m-1"), lines.get(0));
    }
}
