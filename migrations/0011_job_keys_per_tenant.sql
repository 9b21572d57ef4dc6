-- A job's Idempotency-Key belongs to its tenant, as a screening's does (idempotency_keys is keyed by
-- tenant and key): 0000 made it unique per kind across all tenants, so one tenant's batch key would
-- have refused, or found, another tenant's job. No job has been written before this migration (the
-- batch and monitoring features that create them come later), but the rows are copied all the same.
-- SQLite cannot change a table's constraints in place, so the table is rebuilt; nothing references it.
-- Jobs with no tenant (the appliance's own) share one key space per kind: coalesce, because a
-- UNIQUE constraint treats every NULL tenant as different.
-- Never edit a released migration: add a new file instead.

CREATE TABLE jobs_per_tenant_keys (
  id TEXT PRIMARY KEY,
  tenant_id TEXT REFERENCES tenants(id),
  kind TEXT NOT NULL,
  status TEXT NOT NULL CHECK (status IN ('pending', 'running', 'completed', 'failed')),
  payload TEXT NOT NULL DEFAULT '{}',
  idempotency_key TEXT,
  attempts INTEGER NOT NULL DEFAULT 0,
  max_attempts INTEGER NOT NULL DEFAULT 5,
  run_after TEXT NOT NULL,
  lease_owner TEXT,
  lease_expires_at TEXT,
  progress_done INTEGER NOT NULL DEFAULT 0,
  progress_total INTEGER NOT NULL DEFAULT 0,
  last_error TEXT,
  created_at TEXT NOT NULL,
  started_at TEXT,
  finished_at TEXT
);
INSERT INTO jobs_per_tenant_keys SELECT id, tenant_id, kind, status, payload, idempotency_key, attempts, max_attempts,
  run_after, lease_owner, lease_expires_at, progress_done, progress_total, last_error, created_at, started_at, finished_at
  FROM jobs;
DROP TABLE jobs;
ALTER TABLE jobs_per_tenant_keys RENAME TO jobs;
CREATE UNIQUE INDEX jobs_idempotency_key ON jobs (coalesce(tenant_id, ''), kind, idempotency_key) WHERE idempotency_key IS NOT NULL;
CREATE INDEX jobs_claim ON jobs (status, run_after);
CREATE INDEX jobs_tenant ON jobs (tenant_id, kind, created_at);
