-- Provider certifications: one row per run of a contract's golden inputs through a provider (its model, the
-- contract's version), with every check's verdict and evidence. Automatic failover goes only to a provider whose
-- newest run for the job's contract, at the contract's current version and the provider's configured model, passed
-- and is young enough. Rows are history: each run inserts one, none is ever updated (a trigger refuses).
-- Never edit this file once merged: add V005__... instead.

CREATE TABLE certifications (
    id               uuid        PRIMARY KEY,
    provider         text        NOT NULL,
    model            text        NOT NULL,
    contract_id      text        NOT NULL,
    -- Contract.version(): hex SHA-256 of the template and both schemas; a changed template is another version.
    contract_version text        NOT NULL,
    passed           boolean     NOT NULL,
    -- [{"name": "structure", "passed": true, "evidence": {...}}, ...] in the order the checks ran.
    checks           jsonb       NOT NULL,
    report           text        NOT NULL,
    repetitions      integer     NOT NULL,
    started_at       timestamptz NOT NULL,
    finished_at      timestamptz NOT NULL,
    created_at       timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT certifications_provider_check CHECK (length(provider) >= 1),
    CONSTRAINT certifications_contract_id_check CHECK (length(contract_id) >= 1),
    CONSTRAINT certifications_contract_version_check CHECK (contract_version ~ '^[0-9a-f]{64}$'),
    CONSTRAINT certifications_repetitions_check CHECK (repetitions >= 1),
    CONSTRAINT certifications_finished_after_started CHECK (finished_at >= started_at),
    CONSTRAINT certifications_checks_not_empty
        CHECK (jsonb_typeof(checks) = 'array' AND jsonb_array_length(checks) >= 1),
    -- A run passes exactly when every one of its checks passed.
    CONSTRAINT certifications_passed_iff_every_check_passed CHECK (passed = (jsonb_array_length(checks)
        = jsonb_array_length(jsonb_path_query_array(checks, '$[*] ? (@.passed == true)'))))
);

-- The gate's question (newest run of a provider for a contract version) and the listing's (newest per pair).
CREATE INDEX certifications_provider_contract_id_idx
    ON certifications (provider, contract_id, contract_version, finished_at DESC);

CREATE FUNCTION reject_certification_update() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'certification % is history and cannot be updated: record a new run instead', OLD.id
        USING ERRCODE = 'check_violation';
END
$$;

CREATE TRIGGER certifications_append_only BEFORE UPDATE ON certifications
    FOR EACH ROW EXECUTE FUNCTION reject_certification_update();
