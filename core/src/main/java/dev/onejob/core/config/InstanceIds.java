package dev.onejob.core.config;

import java.net.InetAddress;
import java.net.UnknownHostException;

/**
 * Default instance ids ({@code INSTANCE_ID}): service, host name and process id, so replicas in containers (where
 * every process is pid 1) still get distinct Kafka client and transactional ids.
 */
public final class InstanceIds {
    private InstanceIds() {
    }

    public static String defaultFor(String service) {
        String host;
        try {
            host = InetAddress.getLocalHost().getHostName();
        } catch (UnknownHostException e) {
            host = "localhost";
        }
        return service + "-" + host + "-" + ProcessHandle.current().pid();
    }
}
