-- A screening's deliveries: the delivery log's screeningId filter ("did the webhook for this
-- screening go out?"). Without this index the filter read every delivery the tenant ever had
-- through (tenant_id, created_at). Screening ids are UUIDv7, so a screening's commit appends to the
-- index's right-most leaf: one more small write per screen, on a page the group commit shares.
-- Never edit a released migration: add a new file instead.
CREATE INDEX webhook_outbox_screening ON webhook_outbox (screening_id);
