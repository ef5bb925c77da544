package dev.onejob.core.events;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.Field;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import org.junit.jupiter.api.Test;

class HeadersTest {

    @Test
    void everyHeaderNameIsSetLowerCaseAndDistinct() throws Exception {
        List<String> names = new ArrayList<>();
        for (Field field : Headers.class.getFields()) {
            String name = (String) field.get(null);
            assertTrue(name != null && name.matches("[a-z][a-z_-]*"), field.getName() + " = " + name);
            names.add(name);
        }
        assertEquals(6, names.size());
        assertEquals(names.size(), new HashSet<>(names).size(), "no two constants name one header: " + names);
    }
}
