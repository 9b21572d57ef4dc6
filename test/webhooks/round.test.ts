import { afterEach, describe, expect, test } from "bun:test";
import type { AppContext } from "@/context";
import type { FetchFn } from "@/webhooks/send";
import type { LookupFn } from "@/webhooks/send-target";
import { makeTenant } from "../helpers/tenants";
import { expectEachDeliveredOnce, startWebhookReceiver } from "../helpers/webhook-receiver";
import { dispatcherRounds, enqueueEvents, memoryContext, outboxStatuses, receiverWithTenant } from "./fixtures";

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/**
 * A receiver on loopback that the tenant's URL names by a public host name, so the URL policy
 * resolves the name at send time: the lookup given to the dispatcher answers for it, and
 * `toLoopback` sends each POST to the receiver (the name does not exist outside these tests).
 * `seen` is told of every POST before it goes.
 */
async function receiverBehindName(ctx: AppContext, seen: (input: string | URL | Request, init: Parameters<FetchFn>[1]) => void = () => {}) {
  const receiver = await startWebhookReceiver();
  cleanups.push(() => receiver.stop());
  const port = new URL(receiver.url).port;
  const tenant = makeTenant(ctx, { webhookUrl: `https://hooks.bank.example:${port}/aml` });
  receiver.secret = tenant.webhookSigningSecret ?? "";
  const toLoopback: FetchFn = (input, init) => {
    seen(input, init);
    return fetch(`${receiver.url.replace(/\/[^/]*$/, "")}${new URL(String(input)).pathname}`, init);
  };
  return { receiver, tenant, port, toLoopback };
}

/** A fetch that answers 204 to every POST and counts them: for tests where no POST may go out. */
function countingReceiver(): { fetch: FetchFn; readonly posts: number } {
  let posts = 0;
  return {
    fetch: () => {
      posts++;
      return Promise.resolve(new Response(null, { status: 204 }));
    },
    get posts() {
      return posts;
    },
  };
}

describe("a dispatcher claim", () => {
  test("resolves and checks each tenant's receiver once per claim, not once per delivery", async () => {
    const ctx = memoryContext();
    cleanups.push(() => ctx.db.close());
    const posted: string[] = [];
    const { receiver, tenant, port, toLoopback } = await receiverBehindName(ctx, (input, init) => {
      // Sent to the address checked, with the name in Host and as the TLS server name.
      posted.push(`${new Headers(init.headers).get("host")} via ${new URL(String(input)).hostname} (${init.tls?.serverName})`);
    });

    const resolved: string[] = [];
    const lookup: LookupFn = async (hostname) => {
      resolved.push(hostname);
      return [{ address: "93.184.216.34" }];
    };
    const round = dispatcherRounds(ctx, { retryDelayMs: 10, fetch: toLoopback, lookup });

    const first = enqueueEvents(ctx, tenant.tenant.id, 5);
    await round();
    expect(posted).toEqual(Array(5).fill(`hooks.bank.example:${port} via 93.184.216.34 (hooks.bank.example)`));
    expect(resolved).toEqual(["hooks.bank.example"]);

    // The next claim resolves again: a DNS change (or a policy refusal) is seen one claim later at most.
    const second = enqueueEvents(ctx, tenant.tenant.id, 3);
    await round();
    expect(resolved).toEqual(["hooks.bank.example", "hooks.bank.example"]);
    expectEachDeliveredOnce(receiver, [...first, ...second]);
    expect(outboxStatuses(ctx, tenant.tenant.id)).toEqual({ delivered: 8 });
  });

  test("a receiver refused at send time fails every delivery of the claim with the policy's reason", async () => {
    const ctx = memoryContext();
    cleanups.push(() => ctx.db.close());
    const tenant = makeTenant(ctx, { webhookUrl: "https://hooks.bank.example/aml" });
    let resolutions = 0;
    // The name now points inside the appliance's network, which is not allow-listed.
    const lookup: LookupFn = async () => {
      resolutions++;
      return [{ address: "10.0.0.7" }];
    };
    const receiver = countingReceiver();
    const round = dispatcherRounds(ctx, { retryDelayMs: 60_000, fetch: receiver.fetch, lookup });
    enqueueEvents(ctx, tenant.tenant.id, 4);
    await round();
    expect(resolutions).toBe(1);
    expect(receiver.posts).toBe(0);
    const errors = ctx.db.sqlite.query<{ error: string }, []>("SELECT DISTINCT error FROM webhook_attempts").all();
    expect(errors).toHaveLength(1);
    expect(errors[0]?.error).toContain("refused by the webhook URL policy: host hooks.bank.example resolves to private address 10.0.0.7");
    expect(outboxStatuses(ctx, tenant.tenant.id)).toEqual({ pending: 4 });
    // The log names the URL each refused attempt was for, without its query.
    const urls = ctx.db.sqlite.query<{ url: string | null }, []>("SELECT DISTINCT url FROM webhook_attempts").all();
    expect(urls).toEqual([{ url: "https://hooks.bank.example/aml" }]);
  });

  test("a name that does not resolve is said to be so, not a refusal of the policy, with the URL it was for", async () => {
    const ctx = memoryContext();
    cleanups.push(() => ctx.db.close());
    const tenant = makeTenant(ctx, { webhookUrl: "https://hooks.bank-typo.example/aml?token=kept-out" });
    const absolute = makeTenant(ctx, { webhookUrl: "https://hooks.bank.example./aml" });
    // Only the absolute name fails here, as a search domain can make it: the error names it as looked up.
    const lookup: LookupFn = async (hostname) => {
      if (hostname === "hooks.bank.example") return [{ address: "93.184.216.34" }];
      throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: "ENOTFOUND" });
    };
    const receiver = countingReceiver();
    const round = dispatcherRounds(ctx, { retryDelayMs: 60_000, fetch: receiver.fetch, lookup });
    enqueueEvents(ctx, tenant.tenant.id, 2);
    enqueueEvents(ctx, absolute.tenant.id, 1);
    await round();
    expect(receiver.posts).toBe(0);
    const attempts = ctx.db.sqlite.query<{ error: string; url: string | null }, []>("SELECT DISTINCT error, url FROM webhook_attempts ORDER BY url").all();
    expect(attempts).toEqual([
      {
        error: "could not resolve hooks.bank-typo.example: getaddrinfo ENOTFOUND hooks.bank-typo.example (check the host name in the webhook URL, and this machine's DNS)",
        url: "https://hooks.bank-typo.example/aml",
      },
      {
        error: "could not resolve hooks.bank.example.: getaddrinfo ENOTFOUND hooks.bank.example. (check the host name in the webhook URL, and this machine's DNS)",
        url: "https://hooks.bank.example./aml",
      },
    ]);
    expect(outboxStatuses(ctx, tenant.tenant.id)).toEqual({ pending: 2 });
  });

  test("the timeout bounds the whole attempt: a slow lookup leaves the POST only what is left of it", async () => {
    const timeoutMs = 1_000;
    const ctx = memoryContext(timeoutMs);
    cleanups.push(() => ctx.db.close());
    const { receiver, tenant, toLoopback } = await receiverBehindName(ctx);
    // Each alone is inside the timeout; together they are not.
    receiver.delayMs = 700;
    const slowLookup: LookupFn = async () => {
      await Bun.sleep(600);
      return [{ address: "93.184.216.34" }];
    };
    const round = dispatcherRounds(ctx, { retryDelayMs: 60_000, fetch: toLoopback, lookup: slowLookup });
    enqueueEvents(ctx, tenant.tenant.id, 1);
    const started = performance.now();
    await round();
    const attempts = ctx.db.sqlite.query<{ error: string | null; duration_ms: number }, []>("SELECT error, duration_ms FROM webhook_attempts").all();
    expect(attempts).toHaveLength(1);
    expect(attempts[0]?.error).toBe(`no answer within ${timeoutMs} ms`);
    // About the timeout, not the 1,300 ms that lookup and POST would have taken one after the other.
    expect(attempts[0]?.duration_ms).toBeGreaterThanOrEqual(timeoutMs - 5);
    expect(attempts[0]?.duration_ms).toBeLessThan(1_250);
    expect(performance.now() - started).toBeGreaterThanOrEqual(timeoutMs - 5);
    expect(outboxStatuses(ctx, tenant.tenant.id)).toEqual({ pending: 1 });
  });

  test("records that cannot be written leave their rows leased for a resend, and later records are written", async () => {
    const ctx = memoryContext();
    cleanups.push(() => ctx.db.close());
    const { receiver, tenant } = await receiverWithTenant(ctx, cleanups);
    let skewMs = 0;
    ctx.clock = { now: () => new Date(Date.now() + skewMs) };
    const round = dispatcherRounds(ctx, { retryDelayMs: 10, lookup: async () => [{ address: "127.0.0.1" }], leaseMs: 60_000 });

    // The attempts table refuses writes (as a full disk would): the claim's records fail together.
    ctx.db.sqlite.run("CREATE TEMP TRIGGER refuse_attempts BEFORE INSERT ON webhook_attempts BEGIN SELECT RAISE(ABORT, 'no room'); END");
    const first = enqueueEvents(ctx, tenant.tenant.id, 3);
    await round();
    expect(receiver.delivered.map((d) => d.deliveryId).sort()).toEqual([...first].sort());
    expect(outboxStatuses(ctx, tenant.tenant.id)).toEqual({ delivering: 3 });

    // Writes work again: the next claim's records are written (the failed unit did not wedge recording).
    ctx.db.sqlite.run("DROP TRIGGER refuse_attempts");
    const second = enqueueEvents(ctx, tenant.tenant.id, 2);
    await round();
    expect(outboxStatuses(ctx, tenant.tenant.id)).toEqual({ delivering: 3, delivered: 2 });

    // Once their lease expires, the unrecorded rows are reclaimed and sent again (at least once).
    skewMs = 60_001;
    await round();
    expect(outboxStatuses(ctx, tenant.tenant.id)).toEqual({ delivered: 5 });
    expect(receiver.rejected).toEqual([]);
    const sent = receiver.delivered.map((d) => d.deliveryId);
    for (const id of first) expect(sent.filter((s) => s === id)).toHaveLength(2);
    for (const id of second) expect(sent.filter((s) => s === id)).toHaveLength(1);
  });
});
