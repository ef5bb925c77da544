package dev.onejob.simulator;

import org.junit.jupiter.api.AutoClose;

/**
 * What the simulator's ITs share: a simulator of its own for each test, started with the subclass's configuration
 * and closed after the test, and a {@link SimHttp} client pointed at it.
 */
abstract class SimulatorPerTest {
    /** Not final: a test that needs another configuration closes this one and starts its own in its place. */
    @AutoClose
    ProviderSimulator simulator;
    SimHttp http;

    SimulatorPerTest(SimulatorConfig config) {
        this.simulator = SimHttp.startSimulator(config);
        this.http = new SimHttp(simulator);
    }
}
