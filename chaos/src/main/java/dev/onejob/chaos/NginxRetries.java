package dev.onejob.chaos;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * What nginx's access log says about its own retries: a request whose upstream address list names two instances was
 * sent to the first, failed or timed out there, and was re-sent by nginx to the second. For job submissions, a 200 on
 * the re-send means the first instance had already created the job before it failed: the case where nginx's retry of
 * a non-idempotent POST would make a second job if the database did not decide. Reads the log format of
 * {@code infra.NginxConfig}: {@code $msec $request_method $request_uri $status $upstream_addr ...}.
 */
record NginxRetries(long requests, long resent, long resentSubmissions, long resentSubmissionsReplayed) {

    static NginxRetries read(Path accessLog) {
        List<String> lines;
        try {
            lines = Files.readAllLines(accessLog);
        } catch (IOException e) {
            return new NginxRetries(0, 0, 0, 0);
        }
        long resent = 0;
        long submissions = 0;
        long replayed = 0;
        for (String line : lines) {
            String[] fields = line.split(" ");
            if (fields.length < 6 || !fields[4].endsWith(",")) {
                continue;
            }
            resent++;
            if ("POST".equals(fields[1]) && "/v1/jobs".equals(fields[2])) {
                submissions++;
                if ("200".equals(fields[3])) {
                    replayed++;
                }
            }
        }
        return new NginxRetries(lines.size(), resent, submissions, replayed);
    }

    String render() {
        return "| load balancer (nginx access log) | value |\n|---|---:|\n"
                + "| requests through nginx | " + requests + " |\n"
                + "| requests nginx re-sent to the other ingest instance | " + resent + " |\n"
                + "| of which job submissions (POST /v1/jobs) | " + resentSubmissions + " |\n"
                + "| of which answered 200: the first instance had created the job | " + resentSubmissionsReplayed
                + " |\n";
    }
}
