-- Who started an attempt: a token the worker writes with PENDING -> STARTING. When the commit of that transition
-- succeeds but its acknowledgement is lost (the connection breaks during COMMIT), the worker reads the poll again,
-- finds the attempt STARTING with its own token, and makes the call: without it, that attempt got no call at all and
-- the sweeper made it UNKNOWN, inviting a failover for a request nobody sent.
ALTER TABLE attempts ADD COLUMN start_token uuid;
