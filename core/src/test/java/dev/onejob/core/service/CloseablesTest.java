package dev.onejob.core.service;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class CloseablesTest {

    @Test
    void partsCloseInTheOrderGivenAndNullsAreSkipped() {
        List<String> closed = new ArrayList<>();

        Closeables.closeInOrder(() -> closed.add("first"), null, () -> closed.add("third"));

        assertEquals(List.of("first", "third"), closed);
    }

    @Test
    void aPartThatThrowsStopsTheClosingThereWithItsOwnException() {
        List<String> closed = new ArrayList<>();
        IllegalStateException broken = new IllegalStateException("broken");

        IllegalStateException thrown = assertThrows(IllegalStateException.class, () -> Closeables.closeInOrder(
                () -> closed.add("first"), () -> {
                    throw broken;
                }, () -> closed.add("third")));

        assertEquals(broken, thrown);
        assertEquals(List.of("first"), closed);
    }

    @Test
    void aCheckedExceptionIsRethrownWrapped() {
        IOException io = new IOException("disk gone");

        IllegalStateException thrown = assertThrows(IllegalStateException.class, () -> Closeables.closeInOrder(
                () -> {
                    throw io;
                }));

        assertEquals(io, thrown.getCause());
    }

    @Test
    void everyPartOfAListClosesLastFirstAndAFailureDoesNotStopTheOthers() {
        List<String> closed = new ArrayList<>();
        List<String> failed = new ArrayList<>();
        AutoCloseable first = () -> closed.add("first");
        AutoCloseable broken = () -> {
            throw new IOException("disk gone");
        };
        AutoCloseable last = () -> closed.add("last");

        Closeables.closeEachInReverse(List.of(first, broken, last), (part, e) -> failed.add(e.getMessage()));

        assertEquals(List.of("last", "first"), closed);
        assertEquals(List.of("disk gone"), failed);
    }
}
