-- Why the provider stopped writing the answer of a SUCCEEDED attempt, in one neutral form whichever wire protocol it
-- speaks (attempt-completions version 5): stop, stop_sequence, length (max_tokens ran out: the answer is cut),
-- tool_calls, content_filter. Null for attempts that did not succeed, for those written before this column, and when
-- the provider gave a reason onejob does not map. The drop-in endpoints answer it in the caller's format.
ALTER TABLE attempts ADD COLUMN finish_reason text
    CHECK (finish_reason IN ('stop', 'stop_sequence', 'length', 'tool_calls', 'content_filter'));
-- The archive copies the live table's columns (V017).
ALTER TABLE attempts_archive ADD COLUMN finish_reason text;
