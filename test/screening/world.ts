import type { Database } from "bun:sqlite";
import { issueApiKey } from "@/tenants/keys";
import type { CreatedTenant } from "@/tenants/create";
import { type CallOptions, call, type Exchange } from "../helpers/api";
import { type ListServer, type ListServerOptions, startListServer } from "../helpers/lists";
import { makeTenant } from "../helpers/tenants";
import { startWebhookReceiver, type WebhookReceiver } from "../helpers/webhook-receiver";

/** A bulk response row, as the tests read it (the fields they assert on). */
export interface BulkRow {
  index: number;
  status: string;
  screeningId: string | null;
  userReference: string | null;
  decision: string | null;
  listsNotLoaded: string[] | null;
  error: { code: string; detail: string; errors: Array<{ field: string; message: string }> } | null;
}

export interface BulkBody {
  rows: BulkRow[];
  summary: { total: number; screened: number; failed: number };
  correlationId: string;
}

/** A screening test world: the real server with every extension, a real signature-verifying receiver, one tenant. */
export interface ScreeningWorld {
  lists: ListServer;
  receiver: WebhookReceiver;
  tenant: CreatedTenant;
  key: string;
  auditorKey: string;
  url: string;
  /** Sends JSON with the tenant's analyst key unless `key` is given. */
  post(path: string, body: unknown, options?: CallOptions): Promise<Exchange>;
  get(path: string, options?: CallOptions): Promise<Exchange>;
  usedThisMonth(): number;
  close(): Promise<void>;
}

export async function startScreeningWorld(options: ListServerOptions & { quota?: number | null } = {}): Promise<ScreeningWorld> {
  const receiver = await startWebhookReceiver();
  const lists = await startListServer(options);
  const ctx = lists.server.ctx;
  const tenant = makeTenant(ctx, { webhookUrl: receiver.url, monthlyScreeningQuota: options.quota ?? null });
  receiver.secret = tenant.webhookSigningSecret ?? "";
  const auditor = issueApiKey(ctx, { tenant: tenant.tenant.id, label: "auditor", role: "auditor" }, { actor: { type: "cli", id: "test" } });
  const url = lists.server.url;
  return {
    lists,
    receiver,
    tenant,
    key: tenant.apiKey,
    auditorKey: auditor.apiKey,
    url,
    post(path, body, callOptions = {}) {
      return call(url, path, {
        method: "POST",
        key: tenant.apiKey,
        ...callOptions,
        headers: { "content-type": "application/json", ...(callOptions.headers ?? {}) },
        body: typeof body === "string" ? body : JSON.stringify(body),
      });
    },
    get(path, callOptions = {}) {
      return call(url, path, { key: tenant.apiKey, ...callOptions });
    },
    usedThisMonth() {
      const row = ctx.db.sqlite
        .query<{ used: number }, [string]>("SELECT coalesce(sum(used), 0) AS used FROM usage_counters WHERE tenant_id = ?")
        .get(tenant.tenant.id);
      return row?.used ?? 0;
    },
    async close() {
      await lists.close();
      await receiver.stop();
    },
  };
}

/** Settles the outbox: waits until `count` deliveries arrived, then a little longer to catch extras. */
export async function deliveriesSettled(world: ScreeningWorld, count: number): Promise<void> {
  world.lists.webhooks.wake();
  await world.receiver.waitUntil(() => world.receiver.delivered.length >= count, 10_000);
  await Bun.sleep(150);
}

/**
 * Rewrites an Idempotency-Key's row as it will stand once expired. The database keeps a key until it
 * has expired by its own clock (migration 0014), so the test lifts that guard for the rewrite alone,
 * as only someone able to drop a trigger could, and puts it back.
 */
export function expireIdempotencyKey(db: Database, table: "idempotency_keys" | "bulk_idempotency_keys", key: string): void {
  const guard = `${table}_kept_until_expiry`;
  const sql = db.query<{ sql: string }, [string]>("SELECT sql FROM sqlite_master WHERE type = 'trigger' AND name = ?").get(guard)?.sql;
  if (sql === undefined) throw new Error(`no trigger ${guard}`);
  const columns = db
    .query<{ name: string }, []>(`PRAGMA table_info(${table})`)
    .all()
    .map((c) => (c.name === "expires_at" ? "'2000-01-01T00:00:00.000Z'" : c.name))
    .join(", ");
  db.transaction(() => {
    db.run(`CREATE TEMP TABLE expiring_key AS SELECT * FROM ${table} WHERE key = ?`, [key]);
    db.run(`DROP TRIGGER ${guard}`);
    db.run(`DELETE FROM ${table} WHERE key = ?`, [key]);
    db.run(sql);
    db.run(`INSERT INTO ${table} SELECT ${columns} FROM expiring_key`);
    db.run("DROP TABLE expiring_key");
  })();
}
