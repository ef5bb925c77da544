package dev.onejob.providers.certify;

import com.fasterxml.jackson.databind.JsonNode;
import dev.onejob.core.contract.Contract;
import dev.onejob.core.contract.Contracts;
import dev.onejob.core.json.Json;
import dev.onejob.providers.CallOutcome;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

/** Test fixture for the pure checks: golden calls with given outcomes, and contracts written on the fly. */
final class ChecksFixture {
    private ChecksFixture() {
    }

    static GoldenCall answered(int input, int repetition, String answerJson) {
        return new GoldenCall(input, repetition, 3, new CallOutcome.Succeeded(Json.parse(answerJson), "req-1",
                Duration.ofMillis(12)), true);
    }

    static GoldenCall violated(int input, int repetition, String offendingAnswer) {
        return new GoldenCall(input, repetition, 3, new CallOutcome.Failed("contract_violation", "the answer breaks "
                + "contract sentiment: required property 'sentiment' not found", false, true, 200, "req-2",
                offendingAnswer, Duration.ofMillis(12)), true);
    }

    static JsonNode json(String text) {
        return Json.parse(text);
    }

    /** Loads the one contract {@code yaml} defines, from a file in {@code dir}. */
    static Contract contract(Path dir, String yaml) {
        try {
            Files.writeString(dir.resolve("contract.yaml"), yaml);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return Contracts.load(dir).all().stream().filter(c -> !c.passthrough()).findFirst().orElseThrow();
    }
}
