-- Certification is the workers' work. An operator's POST /v1/certifications, or the reconciler's schedule, records a
-- request and, in the same transaction, a certification command in the outbox; a worker (the only service holding the
-- providers' API keys) claims the request, runs the golden calls and records each run under the request's id.
-- Never edit this file once merged: add V020__... instead.

CREATE TABLE certification_requests (
    id           uuid        PRIMARY KEY,
    -- null: every configured provider / every contract.
    provider     text,
    contract_id  text,
    -- The operator's principal ("operator:<name>"), or "schedule".
    requested_by text        NOT NULL,
    requested_at timestamptz NOT NULL DEFAULT now(),
    -- The worker instance running it. A claim older than the lease (see CertificationRequests) may be taken over:
    -- the worker that held it died mid-run.
    claimed_by   text,
    claimed_at   timestamptz,
    finished_at  timestamptz,
    -- Why the request ran nothing (a provider or contract the worker's files do not know); null when it ran.
    error        text,
    CONSTRAINT certification_requests_provider_check CHECK (provider IS NULL OR length(provider) >= 1),
    CONSTRAINT certification_requests_contract_id_check CHECK (contract_id IS NULL OR length(contract_id) >= 1),
    CONSTRAINT certification_requests_claim_check CHECK ((claimed_by IS NULL) = (claimed_at IS NULL)),
    CONSTRAINT certification_requests_finished_after_claim CHECK (finished_at IS NULL OR claimed_at IS NOT NULL),
    CONSTRAINT certification_requests_error_when_finished CHECK (error IS NULL OR finished_at IS NOT NULL)
);

-- The runs a request made. Null for runs recorded before this migration and for runs made by `onejob certify`.
ALTER TABLE certifications ADD COLUMN request_id uuid REFERENCES certification_requests (id);
CREATE INDEX certifications_request_id_idx ON certifications (request_id) WHERE request_id IS NOT NULL;
