-- Durable signed-webhook outbox. A row is inserted in the same transaction as the screening it
-- announces, so an event exists if and only if its screening committed. The dispatcher claims rows
-- with a lease (owner, expiry); an expired lease is reclaimed, so a crash or kill -9 loses nothing.
-- Never edit a released migration: add a new file instead.

CREATE TABLE webhook_outbox (
  id TEXT PRIMARY KEY,                    -- UUIDv7; also the X-AML-Delivery header receivers de-duplicate on
  tenant_id TEXT NOT NULL REFERENCES tenants(id),
  event TEXT NOT NULL CHECK (event IN ('screening.completed', 'monitoring.alert')),
  screening_id TEXT NOT NULL,
  payload TEXT NOT NULL,                  -- the exact raw JSON body that is signed and sent, byte for byte
  status TEXT NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'delivering', 'delivered', 'dead')),
  series INTEGER NOT NULL DEFAULT 1,      -- 1 + manual redeliveries; each redelivery starts a fresh attempt series
  attempts INTEGER NOT NULL DEFAULT 0,    -- attempts claimed in the current series
  next_attempt_at TEXT,                   -- due time while pending; NULL once delivered or dead
  lease_owner TEXT,
  lease_expires_at TEXT,
  last_status_code INTEGER,
  last_error TEXT,
  created_at TEXT NOT NULL,
  delivered_at TEXT,
  dead_at TEXT
);
CREATE INDEX webhook_outbox_claim ON webhook_outbox (status, next_attempt_at);
CREATE INDEX webhook_outbox_lease ON webhook_outbox (status, lease_expires_at);
CREATE INDEX webhook_outbox_tenant ON webhook_outbox (tenant_id, created_at);

-- One row per attempt, including attempts cut short by a crash (recorded when the lease is reclaimed).
CREATE TABLE webhook_attempts (
  id TEXT PRIMARY KEY,
  outbox_id TEXT NOT NULL REFERENCES webhook_outbox(id),
  series INTEGER NOT NULL,
  attempt INTEGER NOT NULL,
  started_at TEXT NOT NULL,
  duration_ms INTEGER NOT NULL,
  status_code INTEGER,                    -- NULL when no HTTP response arrived (timeout, refused, policy)
  error TEXT,                             -- NULL on a 2xx
  url TEXT                                -- scheme, host and path only: a query string may carry a receiver token
);
CREATE INDEX webhook_attempts_outbox ON webhook_attempts (outbox_id, series, attempt);
