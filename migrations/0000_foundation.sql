-- Foundation: tenants, API keys, usage counters, the audit hash chain and the durable jobs table.
-- Never edit a released migration: add a new file instead (the migrator refuses a changed one).

CREATE TABLE tenants (
  id TEXT PRIMARY KEY,
  slug TEXT NOT NULL UNIQUE,
  name TEXT NOT NULL,
  contact_email TEXT NOT NULL,
  plan TEXT NOT NULL,
  enabled_lists TEXT NOT NULL,            -- JSON array of source lists
  webhook_url TEXT,
  webhook_secret_enc TEXT,                -- AES-256-GCM under the data folder's master key; HMAC signing needs the secret itself
  monthly_quota INTEGER CHECK (monthly_quota IS NULL OR monthly_quota >= 0), -- NULL = unlimited
  status TEXT NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'suspended')),
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);

CREATE TABLE api_keys (
  id TEXT PRIMARY KEY,
  tenant_id TEXT NOT NULL REFERENCES tenants(id),
  label TEXT,
  role TEXT NOT NULL CHECK (role IN ('compliance_analyst', 'auditor')),
  lookup_prefix TEXT NOT NULL,            -- first characters of the random part: finds the row without the secret
  key_hash TEXT NOT NULL UNIQUE,          -- sha256 hex of the whole key; the key itself is never stored
  created_at TEXT NOT NULL,
  created_by TEXT NOT NULL,
  revoked_at TEXT,
  revoked_by TEXT
);
CREATE INDEX api_keys_lookup ON api_keys (lookup_prefix);
CREATE INDEX api_keys_tenant ON api_keys (tenant_id);

CREATE TABLE usage_counters (
  tenant_id TEXT NOT NULL REFERENCES tenants(id),
  period TEXT NOT NULL,                   -- UTC calendar month, YYYY-MM
  used INTEGER NOT NULL DEFAULT 0 CHECK (used >= 0),
  PRIMARY KEY (tenant_id, period)
) WITHOUT ROWID;

-- Append-only, per-chain SHA-256 hash chain. chain = tenant id, or 'system' for appliance-wide events.
-- No foreign keys: the log must outlive whatever it describes.
CREATE TABLE audit_log (
  id TEXT PRIMARY KEY,
  chain TEXT NOT NULL,
  seq INTEGER NOT NULL,
  at TEXT NOT NULL,
  action TEXT NOT NULL,
  target_type TEXT NOT NULL,
  target_id TEXT,
  actor_type TEXT NOT NULL,
  actor_id TEXT NOT NULL,
  correlation_id TEXT,
  details TEXT NOT NULL,                  -- canonical JSON, secrets removed
  prev_hash TEXT NOT NULL,
  hash TEXT NOT NULL,
  UNIQUE (chain, seq)
);
CREATE INDEX audit_log_chain_at ON audit_log (chain, at);
CREATE INDEX audit_log_chain_action ON audit_log (chain, action);

CREATE TRIGGER audit_log_no_update BEFORE UPDATE ON audit_log
BEGIN
  SELECT RAISE(ABORT, 'audit_log is append-only');
END;
CREATE TRIGGER audit_log_no_delete BEFORE DELETE ON audit_log
BEGIN
  SELECT RAISE(ABORT, 'audit_log is append-only');
END;

-- Durable background work (batch jobs, monitoring re-screens, list reloads). Claimed with a lease,
-- so a crash loses nothing: expired leases are reclaimed on restart.
CREATE TABLE jobs (
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
  finished_at TEXT,
  UNIQUE (kind, idempotency_key)
);
CREATE INDEX jobs_claim ON jobs (status, run_after);
CREATE INDEX jobs_tenant ON jobs (tenant_id, kind, created_at);

CREATE TABLE app_meta (
  key TEXT PRIMARY KEY,
  value TEXT NOT NULL
);
