-- The job/attempt ledger. Every rule of the design that can be a database rule is one here:
-- idempotency (UNIQUE owner_id, idempotency_key), one live attempt per job (partial unique index),
-- allowed state transitions (trigger over the *_transitions tables), and the shape of a finished job (CHECKs).
-- Never edit this file once merged: add V002__... instead.

CREATE TABLE jobs (
    id                  uuid        PRIMARY KEY,
    owner_id            text        NOT NULL,
    idempotency_key     text        NOT NULL,
    request_fingerprint text        NOT NULL,
    request             jsonb       NOT NULL,
    contract            text        NOT NULL,
    target_provider     text        NOT NULL,
    fallback_providers  text[]      NOT NULL DEFAULT '{}',
    status              text        NOT NULL DEFAULT 'QUEUED',
    version             bigint      NOT NULL DEFAULT 1,
    completed_by        uuid,
    result              jsonb,
    error_code          text,
    error_message       text,
    created_at          timestamptz NOT NULL DEFAULT now(),
    updated_at          timestamptz NOT NULL DEFAULT now(),
    finished_at         timestamptz,
    CONSTRAINT jobs_owner_id_idempotency_key_key UNIQUE (owner_id, idempotency_key),
    CONSTRAINT jobs_owner_id_check CHECK (length(owner_id) BETWEEN 1 AND 255),
    -- 1 to 255 printable ASCII characters (0x20 to 0x7E).
    CONSTRAINT jobs_idempotency_key_check CHECK (idempotency_key ~ '^[ -~]{1,255}$'),
    CONSTRAINT jobs_request_fingerprint_check CHECK (request_fingerprint ~ '^[0-9a-f]{64}$'),
    CONSTRAINT jobs_status_check CHECK (status IN ('QUEUED', 'RUNNING', 'UNKNOWN', 'NEEDS_ACTION', 'SUCCEEDED', 'FAILED', 'CANCELLED')),
    CONSTRAINT jobs_version_check CHECK (version >= 1),
    -- A result exists exactly when an attempt won; only a won job is SUCCEEDED.
    CONSTRAINT jobs_result_iff_succeeded CHECK ((status = 'SUCCEEDED') = (completed_by IS NOT NULL AND result IS NOT NULL)),
    CONSTRAINT jobs_completed_by_only_with_result CHECK ((completed_by IS NULL) = (result IS NULL)),
    CONSTRAINT jobs_finished_at_iff_final CHECK ((status IN ('SUCCEEDED', 'FAILED', 'CANCELLED')) = (finished_at IS NOT NULL))
);

CREATE TABLE attempts (
    id                      uuid        PRIMARY KEY,
    job_id                  uuid        NOT NULL REFERENCES jobs (id),
    number                  integer     NOT NULL,
    provider                text        NOT NULL,
    status                  text        NOT NULL DEFAULT 'PENDING',
    -- The job's version once this attempt existed: the only version under which it may complete.
    job_version             bigint      NOT NULL,
    created_at              timestamptz NOT NULL DEFAULT now(),
    updated_at              timestamptz NOT NULL DEFAULT now(),
    started_at              timestamptz,
    soft_deadline           timestamptz,
    finished_at             timestamptz,
    error_code              text,
    error_message           text,
    retryable               boolean,
    provider_request_id     text,
    lost_reason             text,
    discarded_result_sha256 text,
    CONSTRAINT attempts_job_id_number_key UNIQUE (job_id, number),
    CONSTRAINT attempts_job_id_id_key UNIQUE (job_id, id),
    CONSTRAINT attempts_number_check CHECK (number >= 1),
    CONSTRAINT attempts_status_check CHECK (status IN ('PENDING', 'STARTING', 'UNKNOWN', 'SUCCEEDED', 'FAILED', 'CANCELLED', 'DISCARDED')),
    CONSTRAINT attempts_started_check CHECK (status NOT IN ('STARTING', 'UNKNOWN', 'SUCCEEDED') OR started_at IS NOT NULL),
    CONSTRAINT attempts_lost_reason_check CHECK ((status = 'DISCARDED') = (lost_reason IS NOT NULL)),
    CONSTRAINT attempts_lost_reason_values CHECK (lost_reason IN ('lost-cas', 'attempt-cancelled', 'attempt-failed', 'job-cancelled')),
    CONSTRAINT attempts_discarded_result_check CHECK ((status = 'DISCARDED') = (discarded_result_sha256 IS NOT NULL))
);

-- At most one live attempt per job: the rule behind "no new attempt while one is STARTING or UNKNOWN".
CREATE UNIQUE INDEX attempts_job_id_live_idx ON attempts (job_id) WHERE status IN ('PENDING', 'STARTING', 'UNKNOWN');
-- The sweeper's scan: STARTING attempts past their soft deadline.
CREATE INDEX attempts_soft_deadline_idx ON attempts (soft_deadline) WHERE status = 'STARTING';

-- The winner belongs to this job: (id, completed_by) must name one of the job's own attempts.
ALTER TABLE jobs ADD CONSTRAINT jobs_completed_by_fkey
    FOREIGN KEY (id, completed_by) REFERENCES attempts (job_id, id);

-- Allowed transitions, as data the trigger below checks. core's AttemptStatus/JobStatus hold the same
-- table as code; a test compares the two pair by pair.
CREATE TABLE attempt_transitions (
    from_status text NOT NULL,
    to_status   text NOT NULL,
    PRIMARY KEY (from_status, to_status)
);
INSERT INTO attempt_transitions (from_status, to_status) VALUES
    ('PENDING', 'STARTING'), ('PENDING', 'CANCELLED'),
    ('STARTING', 'SUCCEEDED'), ('STARTING', 'FAILED'), ('STARTING', 'UNKNOWN'), ('STARTING', 'CANCELLED'), ('STARTING', 'DISCARDED'),
    ('UNKNOWN', 'SUCCEEDED'), ('UNKNOWN', 'FAILED'), ('UNKNOWN', 'CANCELLED'), ('UNKNOWN', 'DISCARDED'),
    ('CANCELLED', 'DISCARDED'), ('FAILED', 'DISCARDED');

CREATE TABLE job_transitions (
    from_status text NOT NULL,
    to_status   text NOT NULL,
    PRIMARY KEY (from_status, to_status)
);
INSERT INTO job_transitions (from_status, to_status) VALUES
    ('QUEUED', 'RUNNING'), ('QUEUED', 'CANCELLED'),
    ('RUNNING', 'UNKNOWN'), ('RUNNING', 'SUCCEEDED'), ('RUNNING', 'QUEUED'), ('RUNNING', 'NEEDS_ACTION'), ('RUNNING', 'FAILED'), ('RUNNING', 'CANCELLED'),
    ('UNKNOWN', 'SUCCEEDED'), ('UNKNOWN', 'QUEUED'), ('UNKNOWN', 'NEEDS_ACTION'), ('UNKNOWN', 'FAILED'), ('UNKNOWN', 'CANCELLED'),
    ('NEEDS_ACTION', 'QUEUED'), ('NEEDS_ACTION', 'CANCELLED');

CREATE FUNCTION check_status_transition() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    IF NEW.status IS DISTINCT FROM OLD.status THEN
        IF TG_TABLE_NAME = 'attempts' THEN
            PERFORM 1 FROM attempt_transitions WHERE from_status = OLD.status AND to_status = NEW.status;
        ELSE
            PERFORM 1 FROM job_transitions WHERE from_status = OLD.status AND to_status = NEW.status;
        END IF;
        IF NOT FOUND THEN
            RAISE EXCEPTION 'illegal % status transition % -> % for %', TG_TABLE_NAME, OLD.status, NEW.status, OLD.id
                USING ERRCODE = 'check_violation';
        END IF;
    END IF;
    NEW.updated_at := now();
    RETURN NEW;
END
$$;

CREATE TRIGGER attempts_status_transition BEFORE UPDATE ON attempts
    FOR EACH ROW EXECUTE FUNCTION check_status_transition();
CREATE TRIGGER jobs_status_transition BEFORE UPDATE ON jobs
    FOR EACH ROW EXECUTE FUNCTION check_status_transition();

-- Events written in the same transaction as the change they announce; a relay publishes them.
-- (topic, dedupe_key) makes "one command per attempt, one result per job, one audit per discarded attempt"
-- a database rule, so a replayed transaction cannot queue a second copy.
CREATE TABLE outbox (
    id          bigint      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    topic       text        NOT NULL,
    dedupe_key  text        NOT NULL,
    message_key text        NOT NULL,
    payload     jsonb       NOT NULL,
    headers     jsonb       NOT NULL DEFAULT '{}',
    created_at  timestamptz NOT NULL DEFAULT now(),
    sent_at     timestamptz,
    CONSTRAINT outbox_topic_dedupe_key_key UNIQUE (topic, dedupe_key)
);
CREATE INDEX outbox_unsent_idx ON outbox (id) WHERE sent_at IS NULL;
