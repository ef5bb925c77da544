package dev.onejob.infra;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * How a {@link LocalPostgresCluster}'s PostgreSQL binaries run: {@link #DIRECT}ly, or as root through
 * {@code runuser -u <user> --} (where installed) or else {@code su -s /bin/sh -c '<command>' <user>}.
 */
record RunAs(String tool, String user) {
    static final RunAs DIRECT = new RunAs(null, null);

    static RunAs osUser(String user) {
        Optional<Path> runuser = PostgresBinaries.executable("runuser", List.of(Path.of("/usr/sbin"),
                Path.of("/sbin"), Path.of("/usr/bin"), Path.of("/bin")));
        if (runuser.isPresent()) {
            return new RunAs(runuser.get().toString(), user);
        }
        Optional<Path> su = PostgresBinaries.executable("su", List.of(Path.of("/usr/bin"), Path.of("/bin")));
        if (su.isPresent()) {
            return new RunAs(su.get().toString(), user);
        }
        throw new IllegalStateException("running as root, where initdb and postgres refuse to run, the cluster "
                + "must run them as the OS user " + user + ", but neither runuser nor su was found (searched "
                + "PATH, /usr/sbin, /sbin, /usr/bin, /bin)");
    }

    List<String> command(List<String> command) {
        if (tool == null) {
            return command;
        }
        if (Path.of(tool).getFileName().toString().equals("runuser")) {
            List<String> wrapped = new ArrayList<>(List.of(tool, "-u", user, "--"));
            wrapped.addAll(command);
            return wrapped;
        }
        return List.of(tool, "-s", "/bin/sh", "-c", "exec " + shellQuoted(command), user);
    }

    static String shellQuoted(List<String> words) {
        List<String> quoted = new ArrayList<>();
        for (String word : words) {
            quoted.add(word.matches("[A-Za-z0-9_./=:@%+,-]+") ? word : "'" + word.replace("'", "'\\''") + "'");
        }
        return String.join(" ", quoted);
    }
}
