-- Wake outbox relays as soon as events are queued, instead of making them poll: one notification per inserting
-- statement (the payload is empty; relays read the table).
CREATE FUNCTION notify_outbox_inserted() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('outbox_inserted', '');
    RETURN NULL;
END
$$;

CREATE TRIGGER outbox_inserted AFTER INSERT ON outbox
    FOR EACH STATEMENT EXECUTE FUNCTION notify_outbox_inserted();
