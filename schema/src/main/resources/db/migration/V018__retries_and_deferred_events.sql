-- Retries as attempts. A definite refusal that ran nothing (HTTP 429, 503, 529, a connection refused, ...) makes a new
-- attempt on the same provider after a backoff. The wait is the ledger's, not a sleeping thread's: the new attempt
-- says when it may start (not_before), and its attempt command waits in the outbox until then (outbox.not_before),
-- so it survives a restart of every service. A row without not_before is due at once, as before.

ALTER TABLE attempts ADD COLUMN not_before timestamptz;
ALTER TABLE attempts_archive ADD COLUMN not_before timestamptz;
ALTER TABLE outbox ADD COLUMN not_before timestamptz;
