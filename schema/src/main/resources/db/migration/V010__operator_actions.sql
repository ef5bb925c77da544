-- What operators did to jobs, kept with the job: who, when, what, on which attempt, and why. Written in the same
-- transaction as the action itself, so the ledger never shows a resolution without its record or the reverse.
CREATE TABLE operator_actions (
    id         bigint      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    job_id     uuid        NOT NULL REFERENCES jobs (id),
    attempt_id uuid        REFERENCES attempts (id),
    actor      text        NOT NULL,
    action     text        NOT NULL,
    reason     text        NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT operator_actions_action_check CHECK (action IN ('resolve_failed', 'resolve_cancelled'))
);
CREATE INDEX operator_actions_job_id_idx ON operator_actions (job_id, id);
