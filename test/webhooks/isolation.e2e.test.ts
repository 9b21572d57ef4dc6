import { afterEach, describe, expect, test } from "bun:test";
import type { Server } from "bun";
import { call, json } from "../helpers/api";
import { type ListServer, startListServer } from "../helpers/lists";
import { makeTenant } from "../helpers/tenants";
import { startWebhookReceiver, type WebhookReceiver } from "../helpers/webhook-receiver";

/**
 * A receiver that never answers: every request stays open until release() or until the appliance
 * gives up on it. It records the X-AML-Attempt of each request and counts those still open.
 */
interface HangingReceiver {
  url: string;
  /** X-AML-Attempt of every request received, in arrival order. */
  attempts: string[];
  open: number;
  /** Answers every held request (503) and every later one at once. */
  release(): void;
  stop(): Promise<void>;
}

function startHangingReceiver(): HangingReceiver {
  const held: Array<() => void> = [];
  let released = false;
  const receiver: HangingReceiver = {
    url: "",
    attempts: [],
    open: 0,
    release() {
      released = true;
      for (const answer of held.splice(0)) answer();
    },
    async stop() {
      receiver.release();
      await server.stop(true);
    },
  };
  const server: Server<undefined> = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    // No idle timeout: the request must stay open until the appliance gives up on it.
    idleTimeout: 0,
    async fetch(request) {
      await request.arrayBuffer();
      receiver.attempts.push(request.headers.get("x-aml-attempt") ?? "");
      if (released) return new Response(null, { status: 503 });
      receiver.open++;
      // The appliance aborting (its timeout) closes the request here too.
      await new Promise<void>((resolve) => {
        held.push(resolve);
        request.signal.addEventListener("abort", () => resolve(), { once: true });
      });
      receiver.open--;
      return new Response(null, { status: 503 });
    },
  });
  receiver.url = `http://127.0.0.1:${server.port}/hooks/aml`;
  return receiver;
}

interface AttemptRow {
  tenant_id: string;
  attempt: number;
  started_at: string;
  duration_ms: number;
  status_code: number | null;
  error: string | null;
}

/**
 * The appliance's webhook timeout. Everything A's event needs (B's bulk screened and committed, A's
 * check screened, A's delivery claimed and answered: tens of ms on an idle machine) must happen
 * before B's first attempts time out, for the ordering checks below. 5 s, the default, leaves room
 * for a loaded CI machine (2 s did not always); the test then takes some 16 s, three waves of B's
 * timeouts before its first retry.
 */
const TIMEOUT_MS = 5_000;
/**
 * More than the 20 slots: B would hold them all if it could. Kept small because the retries of B's
 * first attempts queue behind its events never attempted yet (due earlier), 4 at a time once its
 * receiver is known slow: with 24, the first retries go out in the fourth wave of timeouts.
 */
const B_EVENTS = 24;

let lists: ListServer | undefined;
let healthy: WebhookReceiver | undefined;
let hanging: HangingReceiver | undefined;
afterEach(async () => {
  // Answer the held requests first: stopping lets attempts in flight finish, and these never would.
  hanging?.release();
  await lists?.close();
  await healthy?.stop();
  await hanging?.stop();
  lists = healthy = hanging = undefined;
});

describe("one tenant's dead receiver", () => {
  test("does not hold back another tenant's webhook, and its own events are retried later", async () => {
    healthy = await startWebhookReceiver();
    hanging = startHangingReceiver();
    lists = await startListServer({
      webhooks: { retryDelaysMs: [50, 100], maxAttempts: 10, intervalMs: 25, leaseMs: 60_000 },
      flags: { webhooks: { allowPrivateNetworks: ["127.0.0.1"], timeoutMs: TIMEOUT_MS } },
    });
    const { server } = lists;
    const a = makeTenant(server.ctx, { webhookUrl: healthy.url });
    healthy.secret = a.webhookSigningSecret ?? "";
    const b = makeTenant(server.ctx, { webhookUrl: hanging.url });

    // Tenant B screens a bulk; its receiver takes the POSTs and never answers.
    const rows = Array.from({ length: B_EVENTS }, (_, i) => ({ fullName: `Bulk Customer ${i}`, userReference: `b-${i}` }));
    const bulk = await call(server.url, "/v1/screenings/bulk", {
      method: "POST",
      key: b.apiKey,
      headers: { "content-type": "application/json" },
      body: JSON.stringify(rows),
    });
    expect(bulk.status).toBe(200);
    const h = hanging;
    await healthy.waitUntil(() => h.open > 0);

    // Tenant A screens once.
    const check = await call(server.url, "/v1/screenings/check", {
      method: "POST",
      key: a.apiKey,
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ fullName: "Dmitri Korvalev", userReference: "a-1" }),
    });
    expect(check.status).toBe(200);
    const screeningId = json<{ id: string }>(check).id;
    await healthy.waitUntil(() => healthy?.delivered.length === 1);

    // A's event arrived while B's POSTs were still hanging: none of them has ended (timed out) yet.
    const attemptsOf = (tenantId: string) =>
      server.ctx.db.sqlite
        .query<AttemptRow, [string]>(
          `SELECT o.tenant_id, a.attempt, a.started_at, a.duration_ms, a.status_code, a.error
             FROM webhook_attempts a JOIN webhook_outbox o ON o.id = a.outbox_id WHERE o.tenant_id = ? ORDER BY a.started_at`,
        )
        .all(tenantId);
    expect(hanging.open).toBeGreaterThan(0);
    expect(attemptsOf(b.tenant.id)).toEqual([]);
    // Nothing of B has ended yet, so every request it got is still open: B never held every slot,
    // 16 of the 20 at most, so other tenants always had some.
    expect(hanging.attempts.length).toBeGreaterThan(0);
    expect(hanging.attempts.length).toBeLessThanOrEqual(16);
    expect(healthy.delivered[0]?.body.screeningId).toBe(screeningId);
    expect(healthy.rejected).toEqual([]);

    // B's events are retried once its first attempts have timed out.
    await healthy.waitUntil(() => h.attempts.includes("2"), TIMEOUT_MS * 8);
    // In due order: every event of B had its first attempt before the first retry went out.
    expect(h.attempts.filter((x) => x === "1")).toHaveLength(B_EVENTS);
    const bAttempts = attemptsOf(b.tenant.id);
    expect(bAttempts.length).toBeGreaterThan(0);
    expect(bAttempts.every((x) => x.status_code === null && x.error === `no answer within ${TIMEOUT_MS} ms`)).toBe(true);
    // The same order, read from the attempt log: A's attempt ended before the first of B's did. (When
    // one round held every slot, A's attempt could only start once B's round had timed out.)
    const ended = (x: AttemptRow) => Date.parse(x.started_at) + x.duration_ms;
    const [aAttempt] = attemptsOf(a.tenant.id);
    expect(aAttempt).toMatchObject({ attempt: 1, status_code: 204 });
    expect(ended(aAttempt as AttemptRow)).toBeLessThan(Math.min(...bAttempts.map(ended)));
  }, TIMEOUT_MS * 12);
});
