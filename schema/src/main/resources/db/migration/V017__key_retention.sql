-- Idempotency keys are kept for a published window, not forever. A finished job is archived ARCHIVE_AFTER after its
-- creation: it and its attempts and operator actions move to the *_archive tables in one statement (KeyRetention).
-- If its owner's key window (owners file, key_retention, from the job's creation) has not ended by then, a tombstone
-- (owner, key, fingerprint, job, expiry) keeps the key: a replay is answered with the archived job, another payload
-- with a conflict, until the tombstone expires. After that the key may create a new job. An unfinished job is never
-- archived, so its key holds whatever happens to it.
--
-- The archive tables copy the live tables' columns as they are now; a migration that adds a column to jobs,
-- attempts or operator_actions adds it to the archive table too.

CREATE TABLE jobs_archive (LIKE jobs INCLUDING DEFAULTS, archived_at timestamptz NOT NULL);
ALTER TABLE jobs_archive ADD PRIMARY KEY (id);
CREATE INDEX jobs_archive_owner_id_idempotency_key_idx ON jobs_archive (owner_id, idempotency_key);
CREATE TABLE attempts_archive (LIKE attempts INCLUDING DEFAULTS, archived_at timestamptz NOT NULL);
ALTER TABLE attempts_archive ADD PRIMARY KEY (id);
CREATE INDEX attempts_archive_job_id_idx ON attempts_archive (job_id, number);
CREATE TABLE operator_actions_archive (LIKE operator_actions INCLUDING DEFAULTS, archived_at timestamptz NOT NULL);
CREATE INDEX operator_actions_archive_job_id_idx ON operator_actions_archive (job_id, id);

CREATE TABLE idempotency_tombstones (
    owner_id            text        NOT NULL,
    idempotency_key     text        NOT NULL,
    request_fingerprint text        NOT NULL,
    job_id              uuid        NOT NULL,
    expires_at          timestamptz NOT NULL,
    PRIMARY KEY (owner_id, idempotency_key)
);
CREATE INDEX idempotency_tombstones_expires_at_idx ON idempotency_tombstones (expires_at);

-- The unique constraint on jobs decides between live jobs; a tombstone holds a key whose job is archived. Intake
-- skips tombstoned keys in its insert, but a key archived while that insert waited on it (its snapshot is older than
-- the archiving) would slip through. This statement trigger reads with a fresh snapshot after the insert and refuses
-- such a key as the unique constraint would: the intake then answers that request alone, as a replay.
CREATE FUNCTION refuse_tombstoned_keys() RETURNS trigger
    LANGUAGE plpgsql AS $$
BEGIN
    IF EXISTS (SELECT 1 FROM inserted i JOIN idempotency_tombstones t
               ON t.owner_id = i.owner_id AND t.idempotency_key = i.idempotency_key AND t.expires_at > now()) THEN
        RAISE EXCEPTION 'an idempotency key is held by an archived job'
            USING ERRCODE = 'unique_violation', CONSTRAINT = 'idempotency_tombstones_pkey';
    END IF;
    RETURN NULL;
END;
$$;
CREATE TRIGGER jobs_refuse_tombstoned_keys AFTER INSERT ON jobs
    REFERENCING NEW TABLE AS inserted
    FOR EACH STATEMENT EXECUTE FUNCTION refuse_tombstoned_keys();
