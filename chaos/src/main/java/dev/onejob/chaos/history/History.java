package dev.onejob.chaos.history;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The run's history file, {@code history.jsonl}: one {@link Op} per line, in the order they were recorded. Writers
 * from many client threads append under this object's lock; each line is flushed, so a harness killed mid-run leaves
 * a readable prefix.
 */
public final class History implements AutoCloseable {
    private static final ObjectMapper JSON = new ObjectMapper()
            .disable(SerializationFeature.FAIL_ON_EMPTY_BEANS)
            .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);

    private final BufferedWriter out;
    private final AtomicLong nextOp = new AtomicLong(1);

    private History(BufferedWriter out) {
        this.out = out;
    }

    public static History create(Path file) {
        try {
            Files.createDirectories(file.toAbsolutePath().getParent());
            return new History(Files.newBufferedWriter(file, StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write the history at " + file, e);
        }
    }

    public long nextOp() {
        return nextOp.getAndIncrement();
    }

    public synchronized void record(Op op) {
        try {
            out.write(JSON.writeValueAsString(op));
            out.newLine();
            out.flush();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot append to the history", e);
        }
    }

    /** Records a fault or note (type info) and returns it. */
    public Op info(String f, String detail) {
        Op op = new Op(System.currentTimeMillis(), nextOp(), Op.INFO, f, null, null, null, null, null, null, null,
                detail);
        record(op);
        return op;
    }

    public static List<Op> read(Path file) {
        List<Op> ops = new ArrayList<>();
        try {
            for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
                if (!line.isBlank()) {
                    ops.add(JSON.readValue(line, Op.class));
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the history at " + file, e);
        }
        return ops;
    }

    @Override
    public synchronized void close() {
        try {
            out.close();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot close the history", e);
        }
    }
}
