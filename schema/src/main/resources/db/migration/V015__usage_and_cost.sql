-- What each provider call was billed: the tokens its reply reported and their cost at the provider's prices
-- (providers.yaml), recorded once per attempt whatever its outcome (a lost race and a contract violation were billed
-- too), and a daily roll-up per owner, provider and model that usage reports and budgets read without scanning
-- attempts. Nothing here is indexed on attempts, so recording usage keeps the attempt's update HOT-eligible.

ALTER TABLE attempts
    ADD COLUMN model text,
    ADD COLUMN input_tokens bigint,
    ADD COLUMN output_tokens bigint,
    ADD COLUMN cached_input_tokens bigint,
    ADD COLUMN cost_usd numeric(20, 10),
    ADD COLUMN billed_at timestamptz;

-- All or nothing: an attempt is billed with its counts, or not at all. NOT VALID, then validated, so that an existing
-- ledger is scanned without blocking writes.
ALTER TABLE attempts ADD CONSTRAINT attempts_usage_check CHECK (
    (billed_at IS NULL AND input_tokens IS NULL AND output_tokens IS NULL AND cached_input_tokens IS NULL
        AND cost_usd IS NULL)
    OR (billed_at IS NOT NULL AND input_tokens >= 0 AND output_tokens >= 0
        AND cached_input_tokens BETWEEN 0 AND input_tokens AND (cost_usd IS NULL OR cost_usd >= 0))) NOT VALID;
ALTER TABLE attempts VALIDATE CONSTRAINT attempts_usage_check;

-- One row per owner, UTC day, provider and model: the sums of what was billed that day. Written in the transaction
-- that bills the attempts (BillingStore), so it never disagrees with them. unpriced_calls counts the calls whose
-- provider has no prices (their tokens are in the sums, their cost is not).
CREATE TABLE usage_daily (
    owner_id            text           NOT NULL,
    day                 date           NOT NULL,
    provider            text           NOT NULL,
    model               text           NOT NULL,
    calls               bigint         NOT NULL CHECK (calls >= 0),
    input_tokens        bigint         NOT NULL CHECK (input_tokens >= 0),
    output_tokens       bigint         NOT NULL CHECK (output_tokens >= 0),
    cached_input_tokens bigint         NOT NULL CHECK (cached_input_tokens >= 0),
    cost_usd            numeric(24, 10) NOT NULL CHECK (cost_usd >= 0),
    unpriced_calls      bigint         NOT NULL CHECK (unpriced_calls >= 0),
    PRIMARY KEY (owner_id, day, provider, model)
);
-- Operators' reports span every owner: by day first.
CREATE INDEX usage_daily_day_idx ON usage_daily (day);
