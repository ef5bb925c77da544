-- Exactly-once publication from the outbox. A relay leases rows (claimed_until) in a transaction of its own before
-- publishing them in a Kafka transaction, then marks them sent. A row claimed again after its lease expired
-- (publish_attempts > 1) may already be on its topic: the relay looks for its event id there before publishing, so
-- a crash between the Kafka commit and the mark never shows read_committed consumers a second copy.
ALTER TABLE outbox
    ADD COLUMN publish_attempts integer NOT NULL DEFAULT 0,
    ADD COLUMN claimed_until timestamptz;
