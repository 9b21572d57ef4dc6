import { afterEach, describe, expect, test } from "bun:test";
import { writeTx } from "@/storage/db";
import { createWebhookDispatcher, SLOW_TENANT_SLOTS } from "@/webhooks/dispatcher";
import { claimDue } from "@/webhooks/outbox-store";
import { retryPolicy } from "@/webhooks/schedule";
import type { FetchFn } from "@/webhooks/send";
import { makeTenant } from "../helpers/tenants";
import { waitFor } from "../helpers/wait";
import { enqueueEvents, memoryContext, outboxStatuses } from "./fixtures";

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const until = (predicate: () => boolean, timeoutMs = 10_000) => waitFor(predicate, timeoutMs, { intervalMs: 10 });

/**
 * The appliance's webhook timeout in the slot test. The other tenant's event must be claimed and sent
 * before the hanging receiver's first 16 requests time out: 5 s (the default) leaves room for a loaded
 * CI machine, where 2 s did not always.
 */
const TIMEOUT_MS = 5_000;

function context(timeoutMs?: number) {
  const ctx = memoryContext(timeoutMs);
  cleanups.push(() => ctx.db.close());
  return ctx;
}

describe("claimDue with per-tenant room", () => {
  test("passes over a tenant without room to the rows behind it, and gives each tenant at most its room", () => {
    const ctx = context();
    const x = makeTenant(ctx, { webhookUrl: "https://x.bank.example/aml" });
    const y = makeTenant(ctx, { webhookUrl: "https://y.bank.example/aml" });
    const xIds = enqueueEvents(ctx, x.tenant.id, 30);
    const yIds = enqueueEvents(ctx, y.tenant.id, 2);
    const claim = (room: Map<string, number>, limit: number, other = limit) =>
      writeTx(ctx.db, () => claimDue(ctx.db, { owner: "me", now: new Date(), leaseMs: 60_000, limit, room: { of: room, other } }));

    // X's 30 rows are due first; X has no room, so the claim walks past them to Y's.
    expect(claim(new Map([[x.tenant.id, 0]]), 20).map((r) => r.id).sort()).toEqual([...yIds].sort());
    // X may get 3 more; nobody else has rows left.
    expect(claim(new Map([[x.tenant.id, 3]]), 20).map((r) => r.id)).toHaveLength(3);
    // A tenant not listed gets `other` rows, in due order.
    const next = claim(new Map(), 20, 5).map((r) => r.id);
    expect(next).toEqual(xIds.slice(3, 8));
    expect(outboxStatuses(ctx, x.tenant.id)).toEqual({ delivering: 8, pending: 22 });
  });

  test("returns each claimed row as stored: its next attempt reserved, under this owner's lease", () => {
    const ctx = context();
    const x = makeTenant(ctx, { webhookUrl: "https://x.bank.example/aml" });
    enqueueEvents(ctx, x.tenant.id, 3);
    const now = new Date();
    const claimed = writeTx(ctx.db, () => claimDue(ctx.db, { owner: "me", now, leaseMs: 60_000, limit: 20 }));
    const stored = ctx.db.sqlite
      .query<{ id: string; attempts: number; series: number; payload: string; lease_owner: string; lease_expires_at: string }, []>(
        "SELECT id, attempts, series, payload, lease_owner, lease_expires_at FROM webhook_outbox WHERE status = 'delivering' ORDER BY next_attempt_at",
      )
      .all();
    expect(claimed.map((r) => ({ id: r.id, attempts: r.attempts, series: r.series, payload: r.payload }))).toEqual(
      stored.map((r) => ({ id: r.id, attempts: r.attempts, series: r.series, payload: r.payload })),
    );
    expect(claimed.every((r) => r.attempts === 1)).toBe(true);
    expect(new Set(stored.map((r) => `${r.lease_owner} ${r.lease_expires_at}`))).toEqual(new Set([`me ${new Date(now.getTime() + 60_000).toISOString()}`]));
  });
});

describe("a tenant's share of the slots", () => {
  test("a hanging receiver holds at most 16 of 20 slots, then 4 once known slow; another tenant is sent at once meanwhile", async () => {
    const ctx = context(TIMEOUT_MS);
    const slow = makeTenant(ctx, { webhookUrl: "https://slow.bank.example/aml" });
    const quick = makeTenant(ctx, { webhookUrl: "https://quick.bank.example/aml" });
    const open = new Map<string, number>([
      ["slow.bank.example", 0],
      ["quick.bank.example", 0],
    ]);
    const sent = new Map(open);
    let aborted = 0;
    const addresses = new Set<string>();
    /** Ends the requests still open when the test is done, so settling need not wait out their timeout. */
    const hanging = new Set<() => void>();
    // The slow receiver never answers; the appliance's timeout (TIMEOUT_MS) aborts each request.
    const fetchStub: FetchFn = (input, init) => {
      // The name is in the Host header; the URL holds the checked address the POST connects to.
      addresses.add(new URL(String(input)).hostname);
      const host = new Headers(init.headers).get("host") ?? "";
      sent.set(host, (sent.get(host) ?? 0) + 1);
      if (host === "quick.bank.example") return Promise.resolve(new Response(null, { status: 204 }));
      open.set(host, (open.get(host) ?? 0) + 1);
      return new Promise<Response>((_, reject) => {
        const end = () => {
          if (!hanging.delete(end)) return;
          open.set(host, (open.get(host) ?? 0) - 1);
          reject(new Error("aborted"));
        };
        hanging.add(end);
        init.signal?.addEventListener("abort", () => {
          if (hanging.has(end)) aborted++;
          end();
        });
      });
    };
    const loop = createWebhookDispatcher(ctx, {
      retry: retryPolicy({ retryDelaysMs: [0], maxAttempts: 5 }),
      fetch: fetchStub,
      lookup: async () => [{ address: "93.184.216.34" }],
      intervalMs: 10,
      slots: 20,
      leaseMs: 60_000,
    });
    cleanups.push(() => {
      for (const end of [...hanging]) end();
      return loop.settle?.();
    });
    const signal = new AbortController().signal;

    // The POSTs go out once the receiver is prepared (its DNS lookup), just after the claim.
    enqueueEvents(ctx, slow.tenant.id, 40);
    await loop.tick(signal);
    await until(() => sent.get("slow.bank.example") === 20 - SLOW_TENANT_SLOTS);
    expect(open.get("slow.bank.example")).toBe(16);

    const [quickId] = enqueueEvents(ctx, quick.tenant.id, 1);
    await loop.tick(signal);
    await until(() => sent.get("quick.bank.example") === 1);
    expect(open.get("slow.bank.example")).toBe(16);

    // The first requests time out: the receiver is slow now, and gets SLOW_TENANT_SLOTS at a time.
    await until(() => aborted === 16, TIMEOUT_MS * 3);
    await loop.tick(signal);
    await until(() => open.get("slow.bank.example") === SLOW_TENANT_SLOTS);
    await loop.tick(signal);
    await Bun.sleep(50);
    expect(open.get("slow.bank.example")).toBe(SLOW_TENANT_SLOTS);
    expect(sent.get("slow.bank.example")).toBe(16 + SLOW_TENANT_SLOTS);
    const quickRow = ctx.db.sqlite.query<{ status: string }, [string]>("SELECT status FROM webhook_outbox WHERE id = ?").get(quickId ?? "");
    expect(quickRow?.status).toBe("delivered");
    expect([...addresses]).toEqual(["93.184.216.34"]);
  }, TIMEOUT_MS * 6);
});
