import { randomBytes } from "node:crypto";
import { loadConfig } from "@/config";
import { type WebhookRouteOptions, webhookRoutes } from "@/http/routes/webhooks";
import type { ServerExtension } from "@/server";
import type { AppContext } from "@/context";
import { systemClock } from "@/lib/clock";
import { createLogger } from "@/lib/logger";
import { createSecretBox } from "@/lib/secret-box";
import { openDb, writeTx } from "@/storage/db";
import type { CreatedTenant } from "@/tenants/create";
import { createWebhookDispatcher, type DispatcherOptions } from "@/webhooks/dispatcher";
import { enqueueWebhook } from "@/webhooks/enqueue";
import { type WebhookExtensionOptions, webhookExtension } from "@/webhooks/extension";
import { type WebhookEvent, type WebhookOutcome, webhookPayloadFromOutcome } from "@/webhooks/payload";
import { retryPolicy } from "@/webhooks/schedule";
import { startTestServer, type TestServer } from "../helpers/server";
import { makeTenant } from "../helpers/tenants";
import { startWebhookReceiver, type WebhookReceiver } from "../helpers/webhook-receiver";

/** The body fields of spec section 6, and nothing else. */
export const SPEC_BODY_FIELDS = [
  "event",
  "screeningId",
  "userReference",
  "isMatch",
  "score",
  "decision",
  "riskScore",
  "riskBand",
  "createdAt",
  "classification",
  "pepTiers",
  "sourceLists",
  "matchCount",
  "adverseMediaStatus",
  "correlationId",
].sort();

/** A compressed schedule: tests see retries and dead letters in well under a second per step. */
export const FAST: WebhookExtensionOptions = { retryDelaysMs: [50, 100, 150, 200, 250], maxAttempts: 30, intervalMs: 25, leaseMs: 5_000 };

export function sampleOutcome(overrides: Partial<WebhookOutcome> = {}): WebhookOutcome {
  return {
    screeningId: crypto.randomUUID(),
    userReference: "cust-42",
    isMatch: true,
    score: 0.93,
    decision: "Match",
    riskScore: 88,
    riskBand: "High",
    createdAt: new Date().toISOString(),
    classification: "sanctions",
    pepTiers: [],
    sourceLists: ["OFAC", "UN"],
    matchCount: 2,
    adverseMediaStatus: "Skipped",
    correlationId: "corr-test-1",
    ...overrides,
  };
}

/** Queues events the way the screening transaction will: enqueueWebhook inside writeTx. */
export function enqueueEvents(ctx: AppContext, tenantId: string, count: number, event: WebhookEvent = "screening.completed"): string[] {
  return writeTx(ctx.db, () =>
    Array.from({ length: count }, () => {
      const payload = webhookPayloadFromOutcome(event, sampleOutcome());
      const queued = enqueueWebhook(ctx.db, { tenantId, event, payload, at: new Date() });
      if (!queued) throw new Error("tenant has no webhook URL");
      return queued.id;
    }),
  );
}

/**
 * A signature-checking receiver on loopback that answers after `delayMs` (stopped by `cleanups`),
 * and a tenant of `ctx` that sends to it, with its signing secret.
 */
export async function receiverWithTenant(
  ctx: AppContext,
  cleanups: Array<() => Promise<void> | void>,
  delayMs = 0,
): Promise<{ receiver: WebhookReceiver; tenant: CreatedTenant }> {
  const receiver = await startWebhookReceiver();
  cleanups.push(() => receiver.stop());
  receiver.delayMs = delayMs;
  const tenant = makeTenant(ctx, { webhookUrl: receiver.url });
  receiver.secret = tenant.webhookSigningSecret ?? "";
  return { receiver, tenant };
}

export function outboxStatuses(ctx: AppContext, tenantId: string): Record<string, number> {
  const rows = ctx.db.sqlite
    .query<{ status: string; n: number }, [string]>("SELECT status, count(*) AS n FROM webhook_outbox WHERE tenant_id = ? GROUP BY status")
    .all(tenantId);
  return Object.fromEntries(rows.map((r) => [r.status, r.n]));
}

export interface WebhookWorld {
  server: TestServer;
  receiver: WebhookReceiver;
  tenant: CreatedTenant;
  wake(): void;
  close(): Promise<void>;
}

export function serverFlags(timeoutMs = 2_000) {
  return { webhooks: { allowPrivateNetworks: ["127.0.0.1"], timeoutMs } };
}

/** The real server with the webhook extension, a real receiver, and a tenant pointed at it. */
export async function startWebhookWorld(
  options: WebhookExtensionOptions = FAST,
  timeoutMs?: number,
  routeOptions?: WebhookRouteOptions,
): Promise<WebhookWorld> {
  const receiver = await startWebhookReceiver();
  const extension = webhookExtension(options);
  // Route options (a small bulk redelivery cap) replace the extension's routes with the same routes so configured.
  const served: ServerExtension = routeOptions ? { ...extension, routes: (deps) => webhookRoutes(deps, () => extension.wake(), routeOptions) } : extension;
  const server = await startTestServer({ flags: serverFlags(timeoutMs), extensions: [served] });
  const tenant = makeTenant(server.ctx, { webhookUrl: receiver.url });
  receiver.secret = tenant.webhookSigningSecret ?? "";
  return {
    server,
    receiver,
    tenant,
    wake: () => extension.wake(),
    async close() {
      await server.close();
      await receiver.stop();
    },
  };
}

/** An in-memory context for unit tests of the domain functions; `timeoutMs` is the webhook timeout (serverFlags). */
export function memoryContext(timeoutMs?: number): AppContext {
  return {
    db: openDb(":memory:"),
    config: loadConfig({ env: {}, flags: { logLevel: "silent", ...serverFlags(timeoutMs) } }),
    clock: systemClock,
    log: createLogger("silent"),
    secrets: createSecretBox(randomBytes(32)),
  };
}

/** What the tests of a hand-run dispatcher vary; every other option is the same for all of them. */
export interface DispatcherRoundOptions {
  lookup: DispatcherOptions["lookup"];
  /** The one retry delay (at most 3 attempts): short to see a retry soon, long to see none. */
  retryDelayMs: number;
  /** Default the real fetch. */
  fetch?: DispatcherOptions["fetch"];
  /** Default 10 s. */
  leaseMs?: number;
  /** Left out: the dispatcher's own default, process.env. */
  proxyEnv?: DispatcherOptions["proxyEnv"];
}

/**
 * A dispatcher run by hand, not by a scheduler. Each call of the function returned is one round on the
 * same dispatcher: a claim (tick), then every POST and attempt record of it (settle), so the round's
 * effects are all visible when the call resolves.
 */
export function dispatcherRounds(ctx: AppContext, options: DispatcherRoundOptions): () => Promise<void> {
  const loop = createWebhookDispatcher(ctx, {
    retry: retryPolicy({ retryDelaysMs: [options.retryDelayMs], maxAttempts: 3 }),
    fetch: options.fetch ?? fetch,
    lookup: options.lookup,
    proxyEnv: options.proxyEnv,
    intervalMs: 10,
    slots: 20,
    leaseMs: options.leaseMs ?? 10_000,
  });
  // Never aborted: a round always runs to the end.
  const signal = new AbortController().signal;
  return async () => {
    await loop.tick(signal);
    await loop.settle?.();
  };
}
