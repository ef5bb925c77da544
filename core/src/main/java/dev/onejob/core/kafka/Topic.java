package dev.onejob.core.kafka;

import org.apache.kafka.common.serialization.Serde;

/** A topic with the serdes of its key and value: the only way code names a topic. */
public record Topic<K, V>(String name, Serde<K> keySerde, Serde<V> valueSerde) {
}
