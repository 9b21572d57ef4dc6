import { Database } from "bun:sqlite";
import { describe, expect, test } from "bun:test";
import { auditWhere } from "@/audit/list";
import { migrate } from "@/storage/migrate";
import { deliveryWhere } from "@/webhooks/deliveries";

/**
 * Migration 0004 replaced full indexes with partial ones, which SQLite uses only when the query
 * implies the index's WHERE. These tests pin the queries to the indexes they were written for: a
 * reworded query would otherwise fall back to scanning a tenant's whole audit chain or the outbox
 * without any test noticing.
 */
const sqlite = new Database(":memory:", { strict: true });
migrate(sqlite);

function plan(sql: string, params: ReadonlyArray<string | number>): string {
  return sqlite
    .query<{ detail: string }, Array<string | number>>(`EXPLAIN QUERY PLAN ${sql}`)
    .all(...params)
    .map((row) => row.detail)
    .join(" | ");
}

describe("partial indexes are used by the queries they were made for", () => {
  test("an audit filter on a rare action reads audit_log_chain_action", () => {
    const where = auditWhere("tenant-1", { action: "api_key.revoke" });
    expect(plan(`SELECT count(*) FROM audit_log WHERE ${where.sql}`, where.params)).toContain("audit_log_chain_action");
    expect(plan(`SELECT * FROM audit_log WHERE ${where.sql} ORDER BY seq DESC LIMIT 10`, where.params)).toContain("audit_log_chain_action");
  });

  test("an audit filter on screening.create, which the partial index leaves out, reads the chain instead", () => {
    const where = auditWhere("tenant-1", { action: "screening.create" });
    expect(where.sql).not.toContain("<>");
    expect(plan(`SELECT * FROM audit_log WHERE ${where.sql} ORDER BY seq DESC LIMIT 10`, where.params)).not.toContain("audit_log_chain_action");
  });

  test("rare actions are still found, and screening.create entries are not in the partial index", () => {
    const insert = sqlite.query(
      `INSERT INTO audit_log (id, chain, seq, at, action, target_type, actor_type, actor_id, details, prev_hash, hash)
       VALUES (?, 'tenant-2', ?, '2026-01-01T00:00:00.000Z', ?, 'x', 'cli', 'test', '{}', '', '')`,
    );
    const actions = ["screening.create", "api_key.revoke", "screening.create", "quota.set", "screening.create"];
    for (const [i, action] of actions.entries()) insert.run(`id-${i}`, i + 1, action);
    const count = (action: string) => {
      const where = auditWhere("tenant-2", { action });
      return sqlite.query<{ n: number }, string[]>(`SELECT count(*) AS n FROM audit_log WHERE ${where.sql}`).get(...where.params)?.n;
    };
    expect([count("api_key.revoke"), count("quota.set"), count("screening.create")]).toEqual([1, 1, 3]);
    const indexed = sqlite.query<{ n: number }, []>("SELECT count(*) AS n FROM audit_log INDEXED BY audit_log_chain_action WHERE chain = 'tenant-2' AND action <> 'screening.create'").get();
    expect(indexed?.n).toBe(2);
  });

  test("the webhook dispatcher's claim and reclaim read their partial indexes", () => {
    expect(
      plan("SELECT id FROM webhook_outbox WHERE status = 'pending' AND next_attempt_at <= ?1 ORDER BY next_attempt_at LIMIT ?2", ["2026-01-01", 10]),
    ).toContain("webhook_outbox_claim");
    expect(plan("SELECT * FROM webhook_outbox WHERE status = 'delivering' AND lease_expires_at <= ?", ["2026-01-01"])).toContain(
      "webhook_outbox_lease",
    );
  });

  test("lookups by user reference and by rescreen_of read their partial indexes", () => {
    expect(plan("SELECT id FROM screenings WHERE tenant_id = ? AND user_reference = ?", ["t", "ref"])).toContain("screenings_tenant_reference");
    expect(plan("SELECT id FROM screenings WHERE rescreen_of = ?", ["s"])).toContain("screenings_rescreen_of");
  });

  test("the delivery log's status=dead reads webhook_outbox_dead, in its order, without a sort", () => {
    const where = deliveryWhere("tenant-1", { status: "dead" });
    const count = plan(`SELECT count(*) FROM webhook_outbox WHERE ${where.sql}`, where.params);
    const page = plan(`SELECT * FROM webhook_outbox WHERE ${where.sql} ORDER BY created_at DESC, id DESC LIMIT 50 OFFSET 0`, where.params);
    expect(count).toContain("webhook_outbox_dead");
    expect(page).toContain("webhook_outbox_dead");
    expect(page).not.toContain("TEMP B-TREE");
  });

  test("a status outside DELIVERY_STATUSES never reaches the SQL", () => {
    expect(() => deliveryWhere("tenant-1", { status: "dead' OR '1'='1" as "dead" })).toThrow("unknown delivery status");
  });
});

describe("the delivery log's screeningId filter", () => {
  test("reads webhook_outbox_screening alone and with the other filters, status=dead included", () => {
    const filters = [
      { screeningId: "s-1" },
      { screeningId: "s-1", status: "delivered" as const, event: "screening.completed" as const },
      // The one case where another index (webhook_outbox_dead) also matches every condition.
      { screeningId: "s-1", status: "dead" as const },
    ];
    for (const filter of filters) {
      const where = deliveryWhere("tenant-1", filter);
      expect(plan(`SELECT count(*) FROM webhook_outbox WHERE ${where.sql}`, where.params)).toContain("webhook_outbox_screening");
      expect(plan(`SELECT * FROM webhook_outbox WHERE ${where.sql} ORDER BY created_at DESC, id DESC LIMIT 50 OFFSET 0`, where.params)).toContain(
        "webhook_outbox_screening",
      );
    }
  });
});
