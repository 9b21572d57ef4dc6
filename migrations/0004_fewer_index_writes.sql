-- Fewer index pages written per screening. Every b-tree a screening's transaction touches costs one
-- more WAL page at COMMIT and again at the next checkpoint: about 20 µs per commit each, measured on
-- single-screen commits (group-commit.ts), where these writes are most of the cost.
-- Never edit a released migration: add a new file instead.

-- Almost every audit entry is a screening.create, and each one wrote a page of (chain, action). The
-- index now holds the other actions only (key changes, tenant edits, list imports...), which are the
-- ones worth finding fast; audit/list.ts adds the literal `action <> 'screening.create'` that lets
-- SQLite use it. A filter on screening.create itself reads the chain through (chain, seq).
DROP INDEX audit_log_chain_action;
CREATE INDEX audit_log_chain_action ON audit_log (chain, action, seq) WHERE action <> 'screening.create';

-- Only re-screens have rescreen_of and only some subjects have a user reference: partial indexes hold
-- just those rows, so a screening without them writes no page here. Lookups by `col = ?` imply
-- NOT NULL, so SQLite still uses them.
DROP INDEX screenings_rescreen_of;
CREATE INDEX screenings_rescreen_of ON screenings (rescreen_of) WHERE rescreen_of IS NOT NULL;
DROP INDEX screenings_tenant_reference;
CREATE INDEX screenings_tenant_reference ON screenings (tenant_id, user_reference) WHERE user_reference IS NOT NULL;

-- The dispatcher's two queries each read one status: WHERE status = 'pending' AND next_attempt_at <= ?
-- (claim) and WHERE status = 'delivering' AND lease_expires_at <= ? (reclaim). Partial indexes on just
-- those statuses stay a few pages (only undelivered rows are in them), an enqueue writes one of them
-- instead of both, and a delivered row leaves both.
DROP INDEX webhook_outbox_claim;
CREATE INDEX webhook_outbox_claim ON webhook_outbox (next_attempt_at) WHERE status = 'pending';
DROP INDEX webhook_outbox_lease;
CREATE INDEX webhook_outbox_lease ON webhook_outbox (lease_expires_at) WHERE status = 'delivering';
