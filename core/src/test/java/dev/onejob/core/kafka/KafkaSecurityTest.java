package dev.onejob.core.kafka;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.onejob.core.config.ConfigException;
import dev.onejob.core.config.Settings;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Kafka client security from the environment: what each protocol sets, what is refused, what is never shown. */
class KafkaSecurityTest {
    @TempDir
    Path dir;

    private static KafkaSecurity of(Map<String, String> env) {
        return KafkaSecurity.fromEnv(Settings.of(env));
    }

    @Test
    void nothingSetIsPlaintext() {
        KafkaSecurity security = of(Map.of());
        assertEquals("PLAINTEXT", security.protocol());
        assertEquals(Map.of("security.protocol", "PLAINTEXT"), security.clientProperties());
    }

    @Test
    void saslScramSetsTheMechanismAndTheLoginAndEveryClientCarriesThem() throws IOException {
        Path password = dir.resolve("password");
        Files.writeString(password, "s3cret\n");
        KafkaSecurity security = of(Map.of("KAFKA_SECURITY_PROTOCOL", "sasl_plaintext",
                "KAFKA_SASL_USERNAME", "ingest-service", "KAFKA_SASL_PASSWORD_FILE", password.toString()));

        assertEquals("SASL_PLAINTEXT", security.clientProperties().get("security.protocol"));
        assertEquals("SCRAM-SHA-512", security.clientProperties().get("sasl.mechanism"));
        assertEquals("org.apache.kafka.common.security.scram.ScramLoginModule required username=\"ingest-service\""
                + " password=\"s3cret\";", security.clientProperties().get("sasl.jaas.config"));
        KafkaConfig kafka = new KafkaConfig("broker:9092", 300_000, security);
        for (Map<String, Object> client : List.of(kafka.producer("p"), kafka.consumer("g", "c"),
                kafka.admin("a"), kafka.common())) {
            assertEquals("SCRAM-SHA-512", client.get("sasl.mechanism"));
            assertEquals("broker:9092", client.get("bootstrap.servers"));
        }
        assertFalse(security.toString().contains("s3cret"), security.toString());
    }

    @Test
    void aMissingOrAmbiguousSettingIsNamed() throws IOException {
        assertTrue(assertThrows(ConfigException.class, () -> of(Map.of("KAFKA_SECURITY_PROTOCOL", "SASL_SSL")))
                .getMessage().contains("KAFKA_SASL_USERNAME"));
        assertTrue(assertThrows(ConfigException.class, () -> of(Map.of("KAFKA_SECURITY_PROTOCOL", "SASL_PLAINTEXT",
                "KAFKA_SASL_USERNAME", "u"))).getMessage().contains("KAFKA_SASL_PASSWORD"));
        assertTrue(assertThrows(ConfigException.class, () -> of(Map.of("KAFKA_SECURITY_PROTOCOL", "KERBEROS")))
                .getMessage().contains("KAFKA_SECURITY_PROTOCOL"));
        assertTrue(assertThrows(ConfigException.class, () -> of(Map.of("KAFKA_SECURITY_PROTOCOL", "SASL_PLAINTEXT",
                "KAFKA_SASL_MECHANISM", "PLAIN", "KAFKA_SASL_USERNAME", "u", "KAFKA_SASL_PASSWORD", "p")))
                .getMessage().contains("KAFKA_SASL_MECHANISM"));
        Path store = dir.resolve("client.p12");
        Files.write(store, new byte[] {1});
        assertTrue(assertThrows(ConfigException.class, () -> of(Map.of("KAFKA_SECURITY_PROTOCOL", "SSL",
                "KAFKA_SSL_KEYSTORE_FILE", store.toString()))).getMessage().contains("KAFKA_SSL_KEYSTORE_PASSWORD"));
    }

    @Test
    void mutualTlsFromPemFilesNeedsNoPasswords() throws IOException {
        Path ca = dir.resolve("ca.pem");
        Path client = dir.resolve("client.pem");
        Files.writeString(ca, "-----BEGIN CERTIFICATE-----\n");
        Files.writeString(client, "-----BEGIN CERTIFICATE-----\n");
        KafkaSecurity security = of(Map.of("KAFKA_SECURITY_PROTOCOL", "SSL", "KAFKA_SSL_TRUSTSTORE_FILE",
                ca.toString(), "KAFKA_SSL_KEYSTORE_FILE", client.toString()));
        assertEquals("PEM", security.clientProperties().get("ssl.truststore.type"));
        assertEquals(client.toString(), security.clientProperties().get("ssl.keystore.location"));
    }
}
