-- When a STARTING attempt's worker counts as vanished: the start plus the provider's hard timeout plus a grace,
-- written by the worker with PENDING -> STARTING. The sweeper makes an attempt UNKNOWN only past it. Past the soft
-- deadline the worker itself reports UNKNOWN (it measures the soft deadline where the call happens); an attempt whose
-- outcome is only queued behind the reconciler is not the provider's doing, and sweeping it at its soft deadline
-- turned onejob's own queueing into UNKNOWNs that invite a second, paid call. NULL (an attempt started before this
-- migration, or by a caller that gives none) falls back to the soft deadline.
ALTER TABLE attempts ADD COLUMN abandon_after timestamptz;

DROP INDEX attempts_soft_deadline_idx;
CREATE INDEX attempts_abandon_after_idx ON attempts ((coalesce(abandon_after, soft_deadline))) WHERE status = 'STARTING';
