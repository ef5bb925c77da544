-- Budgets and live-attempt limits per owner, enforced where jobs are created (JobIntake). A job accepted under a
-- limit reserves the most it can cost (jobs.reserved_usd, from the prompt's size, max_tokens and its route's prices)
-- and holds a row in job_reservations until it finishes. Creating a job for a limited owner takes that owner's
-- advisory lock, sums what the owner spent this period (usage_daily) and what its unfinished jobs reserved
-- (job_reservations), and refuses the job if it would go over; concurrent creations for one owner are serialized by
-- the lock, so they cannot overshoot together. Owners without limits take no lock and write no reservation.

ALTER TABLE jobs ADD COLUMN reserved_usd numeric(20, 10) CHECK (reserved_usd >= 0);

-- One row per unfinished job accepted under a limit: its owner's in-flight count and reserved sum, by index.
CREATE TABLE job_reservations (
    job_id       uuid           PRIMARY KEY REFERENCES jobs (id) ON DELETE CASCADE,
    owner_id     text           NOT NULL,
    reserved_usd numeric(20, 10) NOT NULL CHECK (reserved_usd >= 0),
    created_at   timestamptz    NOT NULL DEFAULT now()
);
CREATE INDEX job_reservations_owner_id_idx ON job_reservations (owner_id);

-- A finished job's reservation ends with it, in the transaction that finishes it, whichever path finishes it (a won
-- compare-and-swap, a failure without failover, a cancel). The WHEN clause is evaluated without calling the
-- function, so a job accepted without a limit (reserved_usd NULL) costs its updates nothing here.
CREATE FUNCTION release_job_reservation() RETURNS trigger
    LANGUAGE plpgsql AS $$
BEGIN
    DELETE FROM job_reservations WHERE job_id = NEW.id;
    RETURN NULL;
END;
$$;
CREATE TRIGGER jobs_release_reservation AFTER UPDATE OF status ON jobs
    FOR EACH ROW
    WHEN (OLD.reserved_usd IS NOT NULL AND NEW.status IN ('SUCCEEDED', 'FAILED', 'CANCELLED')
          AND OLD.status NOT IN ('SUCCEEDED', 'FAILED', 'CANCELLED'))
    EXECUTE FUNCTION release_job_reservation();
