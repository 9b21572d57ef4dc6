import { expect } from "bun:test";
import type { Server } from "bun";
import { type VerifyResult, verifyWebhook } from "@/webhooks/verify";

/**
 * A real webhook receiver on a loopback port. It checks every request with the reference verifier
 * (signature, timestamp within 300 s) before anything else, so a test that only counts deliveries
 * still proves each one was correctly signed. It can answer 500, or be stopped and started again
 * on the same port to play an outage.
 */
export interface ReceivedDelivery {
  deliveryId: string;
  event: string;
  attempt: string;
  timestamp: string;
  signature: string;
  userAgent: string;
  contentType: string;
  /** The Host header: the receiver URL's host, even when the appliance connected to its checked address. */
  host: string;
  rawBody: string;
  body: Record<string, unknown>;
}

export interface RejectedRequest {
  reason: string;
  headers: Record<string, string>;
  rawBody: string;
}

export interface WebhookReceiver {
  url: string;
  /** Signing secret to verify with; set once the tenant exists. */
  secret: string;
  /** Verified requests answered 2xx. */
  delivered: ReceivedDelivery[];
  /** Verified requests answered with the failure status. */
  failed: ReceivedDelivery[];
  /** Requests the verifier refused: a test expects none. */
  rejected: RejectedRequest[];
  /** While set, verified requests are answered with this status instead of 204. */
  failWith: number | null;
  /** Milliseconds to wait before answering: a slow receiver, to catch deliveries in flight. */
  delayMs: number;
  stop(): Promise<void>;
  start(): Promise<void>;
  /** Resolves once `predicate` holds, polling; rejects after `timeoutMs`. */
  waitUntil(predicate: () => boolean, timeoutMs?: number): Promise<void>;
}

export interface WebhookReceiverOptions {
  /** Serve https with this certificate and key (its url is then https://), still on 127.0.0.1. */
  tls?: { cert: string; key: string };
}

export async function startWebhookReceiver(options: WebhookReceiverOptions = {}): Promise<WebhookReceiver> {
  const scheme = options.tls ? "https" : "http";
  let server: Server<undefined> | null = null;
  let port = 0;
  const receiver: WebhookReceiver = {
    url: "",
    secret: "",
    delivered: [],
    failed: [],
    rejected: [],
    failWith: null,
    delayMs: 0,
    async stop() {
      await server?.stop(true);
      server = null;
    },
    async start() {
      server = Bun.serve({ hostname: "127.0.0.1", port, fetch: handle, ...(options.tls ? { tls: options.tls } : {}) });
      port = server.port ?? port;
      receiver.url = `${scheme}://127.0.0.1:${port}/hooks/aml`;
    },
    async waitUntil(predicate, timeoutMs = 10_000) {
      const deadline = Date.now() + timeoutMs;
      while (!predicate()) {
        if (Date.now() > deadline) throw new Error(`webhook receiver: condition not met within ${timeoutMs} ms`);
        await Bun.sleep(20);
      }
    },
  };

  async function handle(request: Request): Promise<Response> {
    const rawBody = await request.text();
    if (receiver.delayMs > 0) await Bun.sleep(receiver.delayMs);
    const header = (name: string) => request.headers.get(name) ?? "";
    const result: VerifyResult = verifyWebhook({
      secret: receiver.secret,
      timestamp: header("x-aml-timestamp"),
      signature: header("x-aml-signature"),
      rawBody,
    });
    if (!result.ok || request.method !== "POST") {
      receiver.rejected.push({ reason: result.ok ? `method ${request.method}` : result.reason, headers: Object.fromEntries(request.headers), rawBody });
      return new Response("invalid signature", { status: 401 });
    }
    const delivery: ReceivedDelivery = {
      deliveryId: header("x-aml-delivery"),
      event: header("x-aml-event"),
      attempt: header("x-aml-attempt"),
      timestamp: header("x-aml-timestamp"),
      signature: header("x-aml-signature"),
      userAgent: header("user-agent"),
      contentType: header("content-type"),
      host: header("host"),
      rawBody,
      body: JSON.parse(rawBody) as Record<string, unknown>,
    };
    if (receiver.failWith !== null) {
      receiver.failed.push(delivery);
      return new Response("receiver failing on purpose", { status: receiver.failWith });
    }
    receiver.delivered.push(delivery);
    return new Response(null, { status: 204 });
  }

  await receiver.start();
  return receiver;
}

/** Delivery ids received more than once: a test of exactly-once arrival expects none. */
export function duplicateIds(deliveries: ReadonlyArray<ReceivedDelivery>): string[] {
  const seen = new Set<string>();
  const dupes = new Set<string>();
  for (const d of deliveries) {
    if (seen.has(d.deliveryId)) dupes.add(d.deliveryId);
    seen.add(d.deliveryId);
  }
  return [...dupes];
}

/** Every id arrived, each exactly once, and no request failed verification. */
export function expectEachDeliveredOnce(receiver: Pick<WebhookReceiver, "delivered" | "rejected">, ids: readonly string[]): void {
  expect(receiver.rejected).toEqual([]);
  expect(receiver.delivered.map((d) => d.deliveryId).sort()).toEqual([...ids].sort());
  expect(duplicateIds(receiver.delivered)).toEqual([]);
}
