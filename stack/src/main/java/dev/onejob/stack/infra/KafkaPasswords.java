package dev.onejob.stack.infra;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * The SASL passwords of one {@link KafkaCluster}: one random password per user, generated the first time the user
 * is named and kept in {@code <dir>/<user>.password} (mode 0600, nothing else in it), next to
 * {@code <dir>/<user>.properties}, a client configuration for Kafka's own tools ({@code --command-config}). Owns
 * that directory (mode 0700). Passwords are hex, so they need no quoting in a JAAS line or a StorageTool argument.
 */
final class KafkaPasswords {
    private static final Pattern USER = Pattern.compile("[A-Za-z0-9_-]{1,100}");
    private static final Set<PosixFilePermission> OWNER_ONLY = PosixFilePermissions.fromString("rw-------");
    private static final Set<PosixFilePermission> OWNER_DIR = PosixFilePermissions.fromString("rwx------");

    private final Path dir;

    KafkaPasswords(Path dir) {
        this.dir = dir.toAbsolutePath();
    }

    /** Creates the user's password (and client configuration) unless it has one; returns the password. */
    synchronized String ensure(String user) {
        Path file = file(user);
        if (Files.exists(file)) {
            return password(user);
        }
        try {
            Files.createDirectories(dir, PosixFilePermissions.asFileAttribute(OWNER_DIR));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create " + dir, e);
        }
        byte[] random = new byte[24];
        new SecureRandom().nextBytes(random);
        String password = HexFormat.of().formatHex(random);
        writeSecret(dir.resolve(user + ".properties"), """
                # Kafka client settings for %1$s on this cluster: ./onejob kafka console-producer --command-config FILE
                security.protocol=SASL_PLAINTEXT
                sasl.mechanism=SCRAM-SHA-512
                sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required username="%1$s" \
                password="%2$s";
                """.formatted(user, password));
        writeSecret(file, password + "\n");
        return password;
    }

    boolean has(String user) {
        return Files.exists(file(user));
    }

    String password(String user) {
        try {
            return Files.readString(file(user)).strip();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the Kafka password of " + user + " from " + file(user), e);
        }
    }

    Path file(String user) {
        if (!USER.matcher(user).matches()) {
            throw new IllegalArgumentException("'" + user + "' is not a Kafka user name this cluster accepts"
                    + " (1 to 100 of A-Z a-z 0-9 _ -)");
        }
        return dir.resolve(user + ".password");
    }

    Path clientProperties(String user) {
        file(user);
        return dir.resolve(user + ".properties");
    }

    /** Writes {@code text} to a file only its owner may read, created so from the start (never world-readable). */
    static void writeSecret(Path file, String text) {
        try {
            Files.createDirectories(file.toAbsolutePath().getParent());
            if (!Files.exists(file)) {
                Files.createFile(file, PosixFilePermissions.asFileAttribute(OWNER_ONLY));
            }
            Files.setPosixFilePermissions(file, OWNER_ONLY);
            Files.writeString(file, text, StandardOpenOption.TRUNCATE_EXISTING, StandardOpenOption.WRITE);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + file, e);
        }
    }
}
