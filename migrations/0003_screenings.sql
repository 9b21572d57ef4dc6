-- Screenings (immutable audit records), their case rows, tenants' risk profiles and idempotency keys.
-- Never edit a released migration: add a new file instead.

CREATE TABLE screenings (
  id TEXT PRIMARY KEY,                    -- UUIDv7
  tenant_id TEXT NOT NULL REFERENCES tenants(id),
  created_at TEXT NOT NULL,
  correlation_id TEXT,                    -- of the request that created it; also on its webhook
  user_reference TEXT,
  subject TEXT NOT NULL,                  -- JSON: the validated subject as screened
  options TEXT NOT NULL,                  -- JSON: resolved options (profile + overrides + tenant lists), reused by rescreen
  snapshot_id TEXT NOT NULL,              -- the watchlist snapshot the matcher read
  list_versions TEXT NOT NULL,            -- JSON [{source, versionId, publishedAt}]
  decision TEXT NOT NULL CHECK (decision IN ('Clear', 'Review', 'Match')),
  is_match INTEGER NOT NULL CHECK (is_match IN (0, 1)),
  score REAL NOT NULL,
  risk_score INTEGER NOT NULL CHECK (risk_score BETWEEN 0 AND 100),
  risk_band TEXT NOT NULL CHECK (risk_band IN ('Low', 'Medium', 'High', 'Critical')),
  classification TEXT CHECK (classification IS NULL OR classification IN ('sanctions', 'pep', 'adverse_media')),
  pep_tiers TEXT NOT NULL,                -- JSON array
  source_lists TEXT NOT NULL,             -- JSON array
  match_count INTEGER NOT NULL,
  matches TEXT NOT NULL,                  -- JSON array of matches with explanations
  suppressed_matches TEXT NOT NULL,       -- JSON array (deceased persons; excluded from the decision)
  adverse_media_status TEXT NOT NULL CHECK (adverse_media_status IN ('Skipped', 'Ok', 'Stale', 'Unavailable')),
  rescreen_of TEXT REFERENCES screenings(id),
  origin TEXT NOT NULL CHECK (origin IN ('check', 'bulk', 'batch', 'rescreen', 'monitoring')),
  charged INTEGER NOT NULL CHECK (charged IN (0, 1)) -- 0 for monitoring re-screens, which the quota does not count
);
CREATE INDEX screenings_tenant_created ON screenings (tenant_id, created_at);
CREATE INDEX screenings_tenant_reference ON screenings (tenant_id, user_reference);
CREATE INDEX screenings_rescreen_of ON screenings (rescreen_of);

-- The spec makes a finished screening an audit record nothing revises: the database itself refuses.
CREATE TRIGGER screenings_immutable BEFORE UPDATE ON screenings
BEGIN SELECT RAISE(ABORT, 'a screening is immutable once written'); END;
CREATE TRIGGER screenings_kept BEFORE DELETE ON screenings
BEGIN SELECT RAISE(ABORT, 'a screening is immutable once written'); END;

-- One case per screening, written in the screening's transaction. Unlike the screening, a case is
-- the reviewer's working state and is updated (status, disposition). review_status has no CHECK yet:
-- the cases feature owns its state set; screening writes 'open' (Review/Match) or 'not_required' (Clear).
CREATE TABLE cases (
  id TEXT PRIMARY KEY,
  tenant_id TEXT NOT NULL REFERENCES tenants(id),
  screening_id TEXT NOT NULL UNIQUE REFERENCES screenings(id),
  created_at TEXT NOT NULL,
  review_status TEXT NOT NULL,
  disposition TEXT,
  updated_at TEXT NOT NULL
);
CREATE INDEX cases_tenant_created ON cases (tenant_id, created_at);
CREATE INDEX cases_tenant_status ON cases (tenant_id, review_status, created_at);

-- A tenant's risk profile (matching options); absent = the documented defaults.
CREATE TABLE risk_profiles (
  tenant_id TEXT PRIMARY KEY REFERENCES tenants(id),
  options TEXT NOT NULL,                  -- JSON RiskProfileOptions, every field present
  updated_at TEXT NOT NULL,
  updated_by TEXT NOT NULL
);

-- Idempotency-Key of single screens: the same key and body replay the original screening, uncharged.
CREATE TABLE idempotency_keys (
  tenant_id TEXT NOT NULL REFERENCES tenants(id),
  key TEXT NOT NULL,
  request_hash TEXT NOT NULL,             -- sha256 of the operation and the canonical JSON of the validated body
  screening_id TEXT NOT NULL REFERENCES screenings(id),
  created_at TEXT NOT NULL,
  expires_at TEXT NOT NULL,
  PRIMARY KEY (tenant_id, key)
) WITHOUT ROWID;
CREATE INDEX idempotency_keys_expiry ON idempotency_keys (expires_at);
