-- Whether a FAILED attempt's request may have reached its provider: false when the worker knows it never left (no
-- connection, a DNS or TLS failure before the request head, a call given up before any connection was ready, a
-- command the worker could not run), true when it may have. A FAILED attempt with false cost nothing and settled no
-- doubt; the benchmark's "every started attempt reached its provider or ended FAILED not sent" reads it. Null for
-- attempts that did not fail, for failures an operator resolved (nobody knows), and for rows written before this.
ALTER TABLE attempts ADD COLUMN request_sent boolean;
-- The archive copies the live table's columns (V017).
ALTER TABLE attempts_archive ADD COLUMN request_sent boolean;
