-- Relays are woken in the process that committed the events (and look once a second for the others'), not by
-- NOTIFY: a transaction that sends NOTIFY takes one server-wide lock at its commit, so every inserting transaction
-- queued behind every other on the hottest path.
DROP TRIGGER outbox_inserted ON outbox;
DROP FUNCTION notify_outbox_inserted();
