-- Idempotency-Key on bulk: a client that lost the answer to a bulk of 1,000 rows (a timeout, a
-- dropped connection) can send it again with the same key and get the original rows back, with
-- nothing screened, charged or announced a second time. A bulk commits all its rows in one
-- transaction, so a key names either the whole outcome or nothing.
-- row_outcomes is a JSON array with one entry per row of the request, in order: {"screeningId": id}
-- for a screened row, {"error": {code, detail, errors}} for a failed one. The screenings it names are
-- immutable, so the replay reads each row's summary from them.
-- Like idempotency_keys (0003, 0010): inserted once, deleted once expired, never updated or replaced.
-- Check, rescreen and bulk share one key space per tenant; the code checks both tables.
-- Never edit a released migration: add a new file instead.

CREATE TABLE bulk_idempotency_keys (
  tenant_id TEXT NOT NULL REFERENCES tenants(id),
  key TEXT NOT NULL,
  request_hash TEXT NOT NULL,             -- sha256 of "bulk" and the canonical JSON of the rows as validated
  row_outcomes TEXT NOT NULL,
  created_at TEXT NOT NULL,
  expires_at TEXT NOT NULL,
  PRIMARY KEY (tenant_id, key)
) WITHOUT ROWID;
CREATE INDEX bulk_idempotency_keys_expiry ON bulk_idempotency_keys (expires_at);

CREATE TRIGGER bulk_idempotency_keys_immutable BEFORE UPDATE ON bulk_idempotency_keys
BEGIN SELECT RAISE(ABORT, 'idempotency keys are immutable'); END;
CREATE TRIGGER bulk_idempotency_keys_no_replace BEFORE INSERT ON bulk_idempotency_keys
WHEN EXISTS (SELECT 1 FROM bulk_idempotency_keys WHERE tenant_id = NEW.tenant_id AND key = NEW.key)
BEGIN SELECT RAISE(ABORT, 'idempotency keys are immutable'); END;
