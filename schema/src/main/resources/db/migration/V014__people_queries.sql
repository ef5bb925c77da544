-- Indexes for the queries people run (GET /v1/jobs, /v1/attempts, /v1/races, the console), and a short summary of a
-- discarded answer. Every index here is either append-only on jobs (created_at and the key never change, so a job's
-- status updates stay HOT-eligible: no index names status) or partial on attempts, whose status updates already
-- touch an index (attempts_job_id_live_idx). LedgerQueriesPlanIT shows each query's plan on a million jobs.

-- An owner's jobs, newest first, optionally between two creation times (keyset pagination on created_at, id).
CREATE INDEX jobs_owner_id_created_at_idx ON jobs (owner_id, created_at DESC, id DESC);
-- Every owner's jobs, newest first: operators.
CREATE INDEX jobs_created_at_idx ON jobs (created_at DESC, id DESC);
-- An owner's jobs by idempotency-key prefix: byte order, whatever the database's collation, so that a prefix is a
-- range (the unique index follows the collation, where 'a-b' need not sort next to 'a-a').
CREATE INDEX jobs_owner_id_idempotency_key_c_idx ON jobs (owner_id, (idempotency_key COLLATE "C"));

-- The UNKNOWN queue, oldest first; and attempts STARTING for long (a worker that may have vanished).
CREATE INDEX attempts_unknown_at_idx ON attempts (unknown_at, id) WHERE status = 'UNKNOWN';
CREATE INDEX attempts_started_at_idx ON attempts (started_at, id) WHERE status = 'STARTING';
-- Lost races in the order they were lost: a DISCARDED attempt is never updated again, so updated_at is that moment.
CREATE INDEX attempts_discarded_idx ON attempts (updated_at, id) WHERE status = 'DISCARDED';
-- A provider's recent failures.
CREATE INDEX attempts_failed_idx ON attempts (provider, finished_at DESC) WHERE status = 'FAILED';

-- What the discarded answer said, in brief (its first characters and its size), beside its SHA-256: enough for an
-- operator to see what a race threw away without keeping every losing answer whole.
ALTER TABLE attempts ADD COLUMN discarded_result_summary text;
