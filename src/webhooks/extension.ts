import { webhookRoutes } from "@/http/routes/webhooks";
import type { ServerExtension } from "@/server";
import { createWebhookDispatcher } from "./dispatcher";
import { WEBHOOK_LOOP } from "./enqueue";
import { retryPolicy } from "./schedule";
import type { FetchFn } from "./send";
import { type LookupFn, systemLookup } from "./send-target";

export interface WebhookExtensionOptions {
  /** Longest wait after each failed attempt (full jitter below it); default DEFAULT_RETRY_DELAYS_MS. */
  retryDelaysMs?: readonly number[];
  /** Attempts per series before a delivery is dead; default retryDelaysMs.length + 1 (11). */
  maxAttempts?: number;
  /** Jitter source, uniform in [0, 1); default Math.random. */
  random?: () => number;
  /** Idle poll interval; default 1000 ms. */
  intervalMs?: number;
  /** Deliveries claimed and sent concurrently per round; default 20. */
  batchSize?: number;
  /** Lease per claimed delivery; default 2 × webhooks.timeoutMs + 30 s (DNS, POST, commit). */
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
      scheduler.register(
        createWebhookDispatcher(ctx, {
          retry,
          fetch: options.fetch ?? ((input, init) => fetch(input, init)),
          lookup: options.lookup ?? systemLookup,
          intervalMs: options.intervalMs ?? 1_000,
          batchSize: options.batchSize ?? 20,
          leaseMs: options.leaseMs ?? 2 * timeoutMs + 30_000,
        }),
      );
      wake = () => scheduler.wake(WEBHOOK_LOOP);
      running = true;
    },
    stop() {
      running = false;
      wake = () => {};
    },
  };
}
