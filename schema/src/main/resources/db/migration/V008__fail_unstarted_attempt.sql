-- A command the worker cannot run (it names a provider or contract the worker does not know: config skew in a
-- rolling deploy) ends its attempt FAILED without a call, instead of leaving it PENDING forever; its job fails or
-- fails over like for any definite failure. Only a failure that says nothing was sent takes this path.
INSERT INTO attempt_transitions (from_status, to_status) VALUES ('PENDING', 'FAILED');
INSERT INTO job_transitions (from_status, to_status) VALUES ('QUEUED', 'FAILED');
