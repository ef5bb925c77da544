-- The fallback button may send a job to a provider that is not certified for its contract only when an operator
-- overrides the check explicitly; the override (who, and why) is kept on the attempt.
ALTER TABLE attempts ADD COLUMN certification_override text;
