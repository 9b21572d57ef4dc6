-- The last two records that plain SQL could still rewrite (a review listed both):
-- an Idempotency-Key's row decides what a replay answers, so pointing it at another screening (or
-- another request hash) would make a replay return a screening the client never asked for. Rows are
-- only ever inserted, and deleted once expired (rememberKey's sweep), so an UPDATE is refused, and so
-- is an insert that would replace a live key (WITHOUT ROWID: the primary key is the only way in).
-- A delivery attempt is the tenant's evidence of what was sent, when, and what the receiver said;
-- the delivery log and redelivery only ever add attempts, so they are append-only like the audit log,
-- including an INSERT OR REPLACE through the id or the hidden rowid (see 0008).
-- Never edit a released migration: add a new file instead.

CREATE TRIGGER idempotency_keys_immutable BEFORE UPDATE ON idempotency_keys
BEGIN SELECT RAISE(ABORT, 'idempotency keys are immutable'); END;
CREATE TRIGGER idempotency_keys_no_replace BEFORE INSERT ON idempotency_keys
WHEN EXISTS (SELECT 1 FROM idempotency_keys WHERE tenant_id = NEW.tenant_id AND key = NEW.key)
BEGIN SELECT RAISE(ABORT, 'idempotency keys are immutable'); END;

CREATE TRIGGER webhook_attempts_immutable BEFORE UPDATE ON webhook_attempts
BEGIN SELECT RAISE(ABORT, 'webhook attempts are append-only'); END;
CREATE TRIGGER webhook_attempts_kept BEFORE DELETE ON webhook_attempts
BEGIN SELECT RAISE(ABORT, 'webhook attempts are append-only'); END;
CREATE TRIGGER webhook_attempts_no_replace BEFORE INSERT ON webhook_attempts
WHEN EXISTS (SELECT 1 FROM webhook_attempts WHERE id = NEW.id)
  OR EXISTS (SELECT 1 FROM webhook_attempts WHERE rowid = NEW.rowid)
BEGIN SELECT RAISE(ABORT, 'webhook attempts are append-only'); END;
