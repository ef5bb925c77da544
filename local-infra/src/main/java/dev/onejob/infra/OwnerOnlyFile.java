package dev.onejob.infra;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SeekableByteChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.Set;

/**
 * Writes a file that holds tokens (in clear or hashed) so that only its owner may read it ({@code rw-------}), with
 * no moment where it is readable by others: the text goes to a temporary file in the same directory, created with
 * that permission, which then replaces the file in one move. A file that existed with wider permissions is replaced,
 * so it ends owner-only too. On a file system without POSIX permissions (Windows) it is written plainly.
 */
public final class OwnerOnlyFile {
    public static final Set<PosixFilePermission> OWNER_ONLY = PosixFilePermissions.fromString("rw-------");

    private OwnerOnlyFile() {
    }

    public static void write(Path file, String text) throws IOException {
        Path dir = file.toAbsolutePath().getParent();
        if (!enforced(file)) {
            Files.writeString(file, text);
            return;
        }
        byte[] random = new byte[8];
        new SecureRandom().nextBytes(random);
        Path temp = dir.resolve("." + file.getFileName() + "." + HexFormat.of().formatHex(random) + ".tmp");
        try {
            try (SeekableByteChannel out = Files.newByteChannel(temp, Set.of(StandardOpenOption.CREATE_NEW,
                    StandardOpenOption.WRITE), PosixFilePermissions.asFileAttribute(OWNER_ONLY))) {
                ByteBuffer bytes = ByteBuffer.wrap(text.getBytes(StandardCharsets.UTF_8));
                while (bytes.hasRemaining()) {
                    out.write(bytes);
                }
            }
            // The umask can only have removed bits from rw-------; this makes it exactly that.
            Files.setPosixFilePermissions(temp, OWNER_ONLY);
            move(temp, file);
        } finally {
            Files.deleteIfExists(temp);
        }
    }

    /** True when {@code file}'s file system has POSIX permissions, so {@link #write} makes it owner-only. */
    public static boolean enforced(Path file) {
        return file.getFileSystem().supportedFileAttributeViews().contains("posix");
    }

    private static void move(Path temp, Path file) throws IOException {
        try {
            Files.move(temp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } catch (AtomicMoveNotSupportedException e) {
            Files.move(temp, file, StandardCopyOption.REPLACE_EXISTING);
        }
    }
}
