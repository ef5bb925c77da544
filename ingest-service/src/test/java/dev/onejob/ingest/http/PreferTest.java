package dev.onejob.ingest.http;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class PreferTest {
    private static final Duration MAX = Duration.ofSeconds(60);

    private static Optional<Duration> waitFor(String... headers) {
        return Prefer.waitFor(List.of(headers), MAX);
    }

    @Test
    void waitIsReadAmongOtherPreferencesInAnyCaseAndCappedAtTheMaximum() {
        assertEquals(Optional.of(Duration.ofSeconds(10)), waitFor("wait=10"));
        assertEquals(Optional.of(Duration.ofSeconds(5)), waitFor("respond-async, WAIT=5"));
        assertEquals(Optional.of(Duration.ofSeconds(7)), waitFor("return=minimal", "wait = 7 ; x=y"));
        assertEquals(Optional.of(Duration.ofSeconds(3)), waitFor("wait=\"3\""));
        assertEquals(Optional.of(MAX), waitFor("wait=3600"));
        assertEquals(Optional.of(Duration.ZERO), waitFor("wait=0"));
    }

    @Test
    void aWaitThatIsNotANumberOfSecondsIsIgnoredAsRfc7240Asks() {
        for (String header : new String[] {"wait", "wait=", "wait=-1", "wait=1.5", "wait=abc", "waiting=3",
                "wait=99999999999999"}) {
            assertEquals(Optional.empty(), waitFor(header), header);
        }
        assertEquals(Optional.empty(), Prefer.waitFor(List.of(), MAX));
        assertEquals(Optional.empty(), Prefer.waitFor(List.of("wait=5"), Duration.ZERO), "waits turned off");
    }
}
