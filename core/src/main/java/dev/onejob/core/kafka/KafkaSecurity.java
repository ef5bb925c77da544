package dev.onejob.core.kafka;

import dev.onejob.core.config.ConfigException;
import dev.onejob.core.config.Settings;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * How every Kafka client of a process authenticates: the security protocol and, for it, SASL/SCRAM credentials or
 * TLS stores (mTLS when a key store is given). Read once from the environment, validated at startup with the variable
 * named in every error, and applied by {@link KafkaConfig} to producers, consumers, admin clients and Kafka Streams
 * alike. {@link #toString()} never shows a password.
 *
 * <pre>
 * KAFKA_SECURITY_PROTOCOL    PLAINTEXT (default) | SASL_PLAINTEXT | SASL_SSL | SSL
 * KAFKA_SASL_MECHANISM       SCRAM-SHA-512 (default) | SCRAM-SHA-256
 * KAFKA_SASL_USERNAME        the principal's name
 * KAFKA_SASL_PASSWORD        its password, or KAFKA_SASL_PASSWORD_FILE: a file holding it
 * KAFKA_SSL_TRUSTSTORE_FILE  the CA to trust (PEM, or PKCS12/JKS with KAFKA_SSL_TRUSTSTORE_PASSWORD)
 * KAFKA_SSL_KEYSTORE_FILE    this client's certificate and key, for mTLS (PEM, or PKCS12/JKS with
 *                            KAFKA_SSL_KEYSTORE_PASSWORD)
 * </pre>
 */
public record KafkaSecurity(String protocol, Map<String, Object> clientProperties) {
    public static final KafkaSecurity PLAINTEXT = new KafkaSecurity("PLAINTEXT", Map.of());
    private static final Set<String> PROTOCOLS = Set.of("PLAINTEXT", "SASL_PLAINTEXT", "SASL_SSL", "SSL");
    private static final Set<String> MECHANISMS = Set.of("SCRAM-SHA-512", "SCRAM-SHA-256");

    public KafkaSecurity {
        clientProperties = Map.copyOf(clientProperties);
    }

    public static KafkaSecurity fromEnv(Settings settings) {
        String protocol = settings.text("KAFKA_SECURITY_PROTOCOL", "PLAINTEXT").toUpperCase(Locale.ROOT);
        if (!PROTOCOLS.contains(protocol)) {
            throw new ConfigException("KAFKA_SECURITY_PROTOCOL must be one of PLAINTEXT, SASL_PLAINTEXT, SASL_SSL, SSL;"
                    + " was '" + protocol + "'");
        }
        Map<String, Object> props = new LinkedHashMap<>();
        props.put("security.protocol", protocol);
        if (protocol.startsWith("SASL")) {
            String mechanism = settings.text("KAFKA_SASL_MECHANISM", "SCRAM-SHA-512").toUpperCase(Locale.ROOT);
            if (!MECHANISMS.contains(mechanism)) {
                throw new ConfigException("KAFKA_SASL_MECHANISM must be SCRAM-SHA-512 or SCRAM-SHA-256; was '"
                        + mechanism + "'");
            }
            String user = settings.raw("KAFKA_SASL_USERNAME").filter(s -> !s.isBlank()).orElseThrow(() ->
                    new ConfigException("KAFKA_SECURITY_PROTOCOL " + protocol + " needs KAFKA_SASL_USERNAME"));
            String password = secret(settings, "KAFKA_SASL_PASSWORD");
            props.put("sasl.mechanism", mechanism);
            props.put("sasl.jaas.config", "org.apache.kafka.common.security.scram.ScramLoginModule required username=\""
                    + quoted(user, "KAFKA_SASL_USERNAME") + "\" password=\"" + quoted(password, "KAFKA_SASL_PASSWORD")
                    + "\";");
        }
        if (protocol.endsWith("SSL")) {
            store(settings, props, "truststore", "KAFKA_SSL_TRUSTSTORE");
            store(settings, props, "keystore", "KAFKA_SSL_KEYSTORE");
        }
        return new KafkaSecurity(protocol, props);
    }

    /** A password from {@code NAME}, or from the file {@code NAME_FILE} (trailing newline dropped). */
    private static String secret(Settings settings, String name) {
        var direct = settings.raw(name).filter(s -> !s.isEmpty());
        var file = settings.raw(name + "_FILE").filter(s -> !s.isBlank());
        if (direct.isPresent() == file.isPresent()) {
            throw new ConfigException("set exactly one of " + name + " and " + name + "_FILE");
        }
        if (direct.isPresent()) {
            return direct.get();
        }
        try {
            return Files.readString(Path.of(file.get())).stripTrailing();
        } catch (IOException e) {
            throw new ConfigException(name + "_FILE: cannot read " + file.get() + ": " + e.getMessage());
        }
    }

    private static void store(Settings settings, Map<String, Object> props, String kind, String prefix) {
        var file = settings.raw(prefix + "_FILE").filter(s -> !s.isBlank());
        if (file.isEmpty()) {
            return;
        }
        if (!Files.isReadable(Path.of(file.get()))) {
            throw new ConfigException(prefix + "_FILE: cannot read " + file.get());
        }
        String lower = file.get().toLowerCase(Locale.ROOT);
        String type = lower.endsWith(".pem") || lower.endsWith(".crt") ? "PEM"
                : lower.endsWith(".jks") ? "JKS" : "PKCS12";
        props.put("ssl." + kind + ".location", file.get());
        props.put("ssl." + kind + ".type", type);
        var password = settings.raw(prefix + "_PASSWORD").filter(s -> !s.isEmpty());
        if (!type.equals("PEM") && password.isEmpty()) {
            throw new ConfigException(prefix + "_FILE is a " + type + " store and needs " + prefix + "_PASSWORD");
        }
        password.ifPresent(p -> props.put("ssl." + kind + ".password", p));
    }

    /** A JAAS value cannot hold a double quote or a backslash unescaped; refuse rather than guess. */
    private static String quoted(String value, String name) {
        if (value.contains("\"") || value.contains("\\")) {
            throw new ConfigException(name + " must not contain a double quote or a backslash");
        }
        return value;
    }

    @Override
    public String toString() {
        Map<String, Object> shown = new LinkedHashMap<>();
        clientProperties.forEach((k, v) -> shown.put(k, k.contains("password") || k.equals("sasl.jaas.config")
                ? "(hidden)" : v));
        return "KafkaSecurity" + shown;
    }
}
