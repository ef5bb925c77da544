-- A provider answer that broke the contract (invalid JSON, a missing field, an invented key) is never a result,
-- but it is kept on the failed attempt for the audit.
ALTER TABLE attempts ADD COLUMN offending_answer text;
