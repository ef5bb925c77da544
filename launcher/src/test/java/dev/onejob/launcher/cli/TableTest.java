package dev.onejob.launcher.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import org.junit.jupiter.api.Test;

class TableTest {
    @Test
    void columnsAreAsWideAsTheirWidestCellAndRowsKeepTheirCellsAligned() {
        // given a table with cells of different widths
        Table table = new Table("id", "status").row("a", "SUCCEEDED").row("abcdef", "UNKNOWN");

        // when it is rendered
        String text = table.render();

        // then every column starts at the same position on every line
        assertEquals("""
                id      status
                ------  ---------
                a       SUCCEEDED
                abcdef  UNKNOWN
                """, text);
    }

    @Test
    void aCellWiderThanItsColumnsMaximumWrapsAtSpaces() {
        // given a column limited to 10 characters
        Table table = new Table("scenario", "result").maxWidth(0, 10).row("the double click", "PASS");

        // when it is rendered
        String text = table.render();

        // then the cell continues on the next line, and the other cells stay on the row's first line
        assertEquals("""
                scenario    result
                ----------  ------
                the double  PASS
                click
                """, text);
    }

    @Test
    void aWordLongerThanTheColumnIsCut() {
        assertEquals(List.of("abcdefgh", "ij"), Table.wrap("abcdefghij", 8));
    }
}
