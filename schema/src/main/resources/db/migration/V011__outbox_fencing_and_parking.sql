-- Fencing: every lease names its holder (claimed_by, a token per lease). A relay marks sent, or gives back, only the
-- rows it still holds, and commits its Kafka transaction while holding their row locks after checking that; so a
-- relay paused past its lease can no longer publish rows another relay took over.
-- Parking: a row the broker refuses for what it is (too large, invalid) is set aside with the reason instead of
-- failing its batch for ever; the rows behind it flow on, and the operator sees it in `./onejob outbox status`.
ALTER TABLE outbox
    ADD COLUMN claimed_by  uuid,
    ADD COLUMN parked_at   timestamptz,
    ADD COLUMN park_reason text;
DROP INDEX outbox_unsent_idx;
CREATE INDEX outbox_unsent_idx ON outbox (id) WHERE sent_at IS NULL AND parked_at IS NULL;
