package dev.onejob.chaos;

import dev.onejob.chaos.fault.FaultInjector;
import dev.onejob.infra.LocalPostgresCluster;
import dev.onejob.infra.proc.ChildProcess;
import dev.onejob.stack.infra.KafkaCluster;
import java.time.Duration;
import java.util.function.Consumer;

/**
 * What the fault injector acts on in a chaos run: the {@link Cluster}'s processes, its Kafka (one broker or three)
 * and simulators, and the run's own PostgreSQL cluster. Each method inflicts one fault and returns when it is over
 * (or, for a freeze, begun).
 */
record ClusterFaults(Cluster cluster, LocalPostgresCluster postgres) implements FaultInjector.Target {
    @Override
    public void killAndRestart(String service, Duration down) {
        restart(service, ChildProcess::kill, down);
    }

    @Override
    public void freeze(String service) {
        cluster.process(service).signal("STOP");
    }

    @Override
    public void thaw(String service) {
        cluster.process(service).signal("CONT");
    }

    @Override
    public void restartBroker() {
        cluster.broker().restart();
    }

    @Override
    public Duration restartPostgres() {
        return postgres.restartImmediate();
    }

    @Override
    public void providerOutage(Duration duration) {
        cluster.providerOutage(duration);
    }

    @Override
    public void rateLimitStorm(Duration duration) {
        cluster.rateLimitStorm(duration);
    }

    @Override
    public void terminateAndRestart(String service, Duration down) {
        restart(service, ChildProcess::close, down);
    }

    /** Ends the service's process the given way, waits {@code down}, and starts it again. */
    private void restart(String service, Consumer<ChildProcess> end, Duration down) {
        end.accept(cluster.process(service));
        ChildProcess.sleep(down.toMillis());
        cluster.start(service);
    }

    @Override
    public void freezePostgres(boolean frozen) {
        postgres.signalAll(frozen ? "STOP" : "CONT");
    }

    @Override
    public int killLeader(String topic, int partition, Duration down) {
        KafkaCluster brokers = onCluster();
        int leader = brokers.leaderOf(topic, partition);
        if (leader < 0) {
            throw new IllegalStateException(topic + "-" + partition + " has no leader to kill");
        }
        brokers.kill(leader);
        try {
            ChildProcess.sleep(down.toMillis());
        } finally {
            brokers.start(leader);
        }
        return leader;
    }

    @Override
    public void rollingRestart() {
        onCluster().rollingRestart();
    }

    @Override
    public void addWorker(String name) {
        ChildProcess running = cluster.process(name);
        if (running != null && running.isAlive()) {
            running.close();
        }
        cluster.start(name);
    }

    @Override
    public void removeWorker(String name) {
        cluster.process(name).close();
    }

    private KafkaCluster onCluster() {
        if (cluster.kafkaCluster() == null) {
            throw new IllegalStateException("this fault needs the three-broker cluster (--cluster)");
        }
        return cluster.kafkaCluster();
    }

    @Override
    public void brokerOutage(Duration down) {
        cluster.broker().kill();
        try {
            ChildProcess.sleep(down.toMillis());
        } finally {
            cluster.broker().start();
        }
    }
}
