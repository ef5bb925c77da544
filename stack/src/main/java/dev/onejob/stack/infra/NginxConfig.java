package dev.onejob.stack.infra;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * What the stack's load balancer does: listen on {@code port} (0 = a free one chosen at start), spread requests
 * round robin over the ingest instances on {@code upstreamPorts}, and retry a request that failed or timed out on
 * one instance once on the next, POSTs included, so a dying instance turns into a duplicate delivery the services
 * must absorb rather than an error. Produces the {@code nginx.conf} text; owns nothing.
 */
public record NginxConfig(int port, List<Integer> upstreamPorts, Duration connectTimeout, Duration readTimeout) {
    public static final Duration DEFAULT_CONNECT_TIMEOUT = Duration.ofSeconds(1);
    public static final Duration DEFAULT_READ_TIMEOUT = Duration.ofSeconds(5);

    public NginxConfig {
        upstreamPorts = List.copyOf(upstreamPorts);
        if (upstreamPorts.isEmpty()) {
            throw new IllegalArgumentException("nginx needs at least one upstream port");
        }
        if (port < 0 || upstreamPorts.stream().anyMatch(p -> p <= 0 || p > 65535)) {
            throw new IllegalArgumentException("bad port in " + port + " -> " + upstreamPorts);
        }
        if (connectTimeout.toMillis() <= 0 || readTimeout.toMillis() <= 0) {
            throw new IllegalArgumentException("nginx timeouts must be at least 1 ms, not " + connectTimeout
                    + " / " + readTimeout);
        }
    }

    /** Round robin over {@code upstreamPorts} on a free port, with the default timeouts (connect 1 s, read 5 s). */
    public static NginxConfig roundRobin(List<Integer> upstreamPorts) {
        return new NginxConfig(0, upstreamPorts, DEFAULT_CONNECT_TIMEOUT, DEFAULT_READ_TIMEOUT);
    }

    public NginxConfig withPort(int newPort) {
        return new NginxConfig(newPort, upstreamPorts, connectTimeout, readTimeout);
    }

    public NginxConfig withTimeouts(Duration connect, Duration read) {
        return new NginxConfig(port, upstreamPorts, connect, read);
    }

    /**
     * The configuration for an nginx whose every file (pid, logs, temp bodies) lives in {@code dir}; {@code runAs}
     * is the {@code user} directive's value, or null to leave nginx's default.
     */
    String render(Path dir, String runAs) {
        if (port == 0) {
            throw new IllegalStateException("choose the listen port before rendering the nginx config");
        }
        StringBuilder upstreams = new StringBuilder();
        for (int upstream : upstreamPorts) {
            // max_fails=0: never mark an instance down, so a restarted instance gets traffic at once.
            upstreams.append("        server ").append(LoopbackPorts.HOST).append(':').append(upstream)
                    .append(" max_fails=0;\n");
        }
        String temp = dir.resolve("temp").toString();
        return (runAs == null ? "" : "user " + runAs + ";\n") + """
                daemon off;
                master_process on;
                worker_processes 1;
                pid %1$s/nginx.pid;
                error_log %1$s/error.log warn;

                events {
                    worker_connections 1024;
                }

                http {
                    log_format chaos '$msec $request_method $request_uri $status $upstream_addr $upstream_status '
                                     '$upstream_response_time $http_idempotency_key';
                    access_log %1$s/access.log chaos;
                    client_body_temp_path %2$s/client_body;
                    proxy_temp_path %2$s/proxy;
                    fastcgi_temp_path %2$s/fastcgi;
                    uwsgi_temp_path %2$s/uwsgi;
                    scgi_temp_path %2$s/scgi;

                    upstream ingest {
                %3$s        keepalive 32;
                    }

                    server {
                        listen %4$s:%5$d;
                        location / {
                            proxy_pass http://ingest;
                            proxy_http_version 1.1;
                            proxy_set_header Connection "";
                            proxy_set_header Host $host;
                            proxy_pass_request_headers on;
                            proxy_next_upstream error timeout http_502 http_503 non_idempotent;
                            proxy_next_upstream_tries 2;
                            proxy_connect_timeout %6$dms;
                            proxy_read_timeout %7$dms;
                            proxy_send_timeout %7$dms;
                            client_max_body_size 2m;
                        }
                    }
                }
                """.formatted(dir, temp, upstreams, LoopbackPorts.HOST, port, connectTimeout.toMillis(),
                readTimeout.toMillis());
    }

    /** The temp directories {@link #render} names, which nginx expects to be able to create files in. */
    static List<String> tempDirectories() {
        return List.of("client_body", "proxy", "fastcgi", "uwsgi", "scgi");
    }
}
