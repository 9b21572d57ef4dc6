import { webhookRoutes } from "@/http/routes/webhooks";
import type { ServerExtension } from "@/server";
import { createWebhookDispatcher } from "./dispatcher";
import { WEBHOOK_LOOP } from "./enqueue";
import { retryPolicy } from "./schedule";
import type { FetchFn } from "./send";
import { type LookupFn, systemLookup } from "./send-target";

export interface WebhookExtensionOptions {
  /** Longest wait after each failed attempt (the wait is drawn from its upper half); default DEFAULT_RETRY_DELAYS_MS. */
  retryDelaysMs?: readonly number[];
  /** Attempts per series before a delivery is dead; default retryDelaysMs.length + 1 (14). */
  maxAttempts?: number;
  /** Jitter source, uniform in [0, 1); default Math.random. */
  random?: () => number;
  /** Idle poll interval; default 1000 ms. */
  intervalMs?: number;
  /** Deliveries in flight at once across tenants; default 20. */
  slots?: number;
  /** Deliveries in flight at once for a tenant whose receiver is slow; default SLOW_TENANT_SLOTS (4). */
  slowTenantSlots?: number;
  /** Lease per claimed delivery; default 2 × webhooks.timeoutMs + 30 s: the attempt (its DNS lookup included), its record's commit, and room for a stalled machine. */
  leaseMs?: number;
  fetch?: FetchFn;
  lookup?: LookupFn;
}

export interface WebhookExtension extends ServerExtension {
  /** Runs the dispatcher's next round now, e.g. right after a commit that queued events. */
  wake(): void;
}

/** The outbox dispatcher (a scheduler loop) and the delivery-log routes, for startServer's extensions. */
export function webhookExtension(options: WebhookExtensionOptions = {}): WebhookExtension {
  const retry = retryPolicy(options);
  let wake = () => {};
  let running = false;
  return {
    wake: () => wake(),
    readiness: () => ({ name: "webhooks", ready: true, detail: running ? "dispatcher running" : "dispatcher not started" }),
    routes: (deps) => webhookRoutes(deps, () => wake()),
    start(ctx, scheduler) {
      const timeoutMs = ctx.config.webhooks.timeoutMs;
      wake = () => scheduler.wake(WEBHOOK_LOOP);
      scheduler.register(
        createWebhookDispatcher(ctx, {
          retry,
          fetch: options.fetch ?? ((input, init) => fetch(input, init)),
          lookup: options.lookup ?? systemLookup,
          intervalMs: options.intervalMs ?? 1_000,
          slots: options.slots ?? 20,
          slowTenantSlots: options.slowTenantSlots,
          leaseMs: options.leaseMs ?? 2 * timeoutMs + 30_000,
          // Through `wake`, which stop() empties: a POST answered during shutdown wakes nothing.
          wake: () => wake(),
        }),
      );
      running = true;
    },
    stop() {
      running = false;
      wake = () => {};
    },
  };
}
