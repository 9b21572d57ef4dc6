-- A tenant's dead deliveries: the ones the delivery log is filtered for, to redeliver them once the
-- receiver is fixed. Without this index, `status=dead` read every delivery the tenant ever had
-- through (tenant_id, created_at), to find the few that died. A row enters the index only when it
-- dies, so a screening's commit writes nothing more. deliveries.ts writes the status as a literal,
-- which SQLite needs to use a partial index.
-- Never edit a released migration: add a new file instead.
CREATE INDEX webhook_outbox_dead ON webhook_outbox (tenant_id, created_at, id) WHERE status = 'dead';
