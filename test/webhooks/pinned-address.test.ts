import { afterEach, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { loadConfig } from "@/config";
import type { AppContext } from "@/context";
import { type ConnectTarget, pinnedTargets, proxyFor, targetsForAttempt } from "@/webhooks/pinning";
import type { FetchFn } from "@/webhooks/send";
import { checkSendTarget } from "@/webhooks/send-target";
import type { LookupFn } from "@/webhooks/send-target";
import { makeTenant } from "../helpers/tenants";
import { expectEachDeliveredOnce, startWebhookReceiver } from "../helpers/webhook-receiver";
import { dispatcherRounds, enqueueEvents, memoryContext, outboxStatuses } from "./fixtures";

/**
 * The dispatcher connects to the addresses it checked, not to whatever the name resolves to when
 * fetch connects (DNS rebinding). The names below are under .example, which never resolves: a POST
 * that arrives can only have gone to the address the test's resolver gave and the policy passed.
 */

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A self-signed certificate for hooks.bank.example only (test fixture, valid to 2126). */
const TLS_DIR = join(import.meta.dir, "../fixtures/tls");
const CERT = await Bun.file(join(TLS_DIR, "hooks.bank.example.cert.pem")).text();
const KEY = await Bun.file(join(TLS_DIR, "hooks.bank.example.key.pem")).text();

function context(allowPrivate?: string[]): AppContext {
  const ctx = memoryContext();
  if (allowPrivate) {
    ctx.config = loadConfig({ env: {}, flags: { logLevel: "silent", webhooks: { allowPrivateNetworks: allowPrivate, timeoutMs: 2_000 } } });
  }
  cleanups.push(() => ctx.db.close());
  return ctx;
}

/** A hand-run dispatcher with no retry within a test, and no proxy unless `proxyEnv` names one. */
function dispatcher(ctx: AppContext, lookup: LookupFn, fetchFn: FetchFn = fetch, proxyEnv: Record<string, string> = {}) {
  return dispatcherRounds(ctx, { retryDelayMs: 60_000, fetch: fetchFn, lookup, proxyEnv });
}

/** Sets environment variables for this test only: the old values (or their absence) come back after it. */
function setEnv(vars: Record<string, string>): void {
  const saved = Object.fromEntries(Object.keys(vars).map((name) => [name, process.env[name]]));
  Object.assign(process.env, vars);
  cleanups.push(() => {
    for (const [name, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  });
}

/** An HTTP proxy on loopback that answers 204 and records each request line it was sent. */
function recordingProxy(): { proxy: ReturnType<typeof Bun.serve>; seen: string[] } {
  const seen: string[] = [];
  const proxy = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch(request) {
      seen.push(`${request.method} ${request.url}`);
      return new Response(null, { status: 204 });
    },
  });
  cleanups.push(() => proxy.stop(true));
  return { proxy, seen };
}

function attempts(ctx: AppContext): Array<{ status_code: number | null; error: string | null; url: string | null }> {
  return ctx.db.sqlite.query<{ status_code: number | null; error: string | null; url: string | null }, []>("SELECT status_code, error, url FROM webhook_attempts").all();
}

describe("a receiver named by host name", () => {
  test("is POSTed at the address the policy checked, with its name in Host", async () => {
    const ctx = context();
    const receiver = await startWebhookReceiver();
    cleanups.push(() => receiver.stop());
    const port = new URL(receiver.url).port;
    const tenant = makeTenant(ctx, { webhookUrl: `http://hooks.bank.example:${port}/hooks/aml?token=t1` });
    receiver.secret = tenant.webhookSigningSecret ?? "";

    const ids = enqueueEvents(ctx, tenant.tenant.id, 3);
    await dispatcher(ctx, async () => [{ address: "127.0.0.1" }])();

    expectEachDeliveredOnce(receiver, ids);
    expect(new Set(receiver.delivered.map((d) => d.host))).toEqual(new Set([`hooks.bank.example:${port}`]));
    // The delivery log records the URL as configured (without its query), not the address.
    expect(new Set(attempts(ctx).map((a) => a.url))).toEqual(new Set([`http://hooks.bank.example:${port}/hooks/aml`]));
    expect(outboxStatuses(ctx, tenant.tenant.id)).toEqual({ delivered: 3 });
  });

  test("over https, verifies the certificate against the name, not the address", async () => {
    const ctx = context();
    const receiver = await startWebhookReceiver({ tls: { cert: CERT, key: KEY } });
    cleanups.push(() => receiver.stop());
    const port = new URL(receiver.url).port;
    const good = makeTenant(ctx, { webhookUrl: `https://hooks.bank.example:${port}/aml` });
    // Same address and port, a name the certificate does not carry.
    const other = makeTenant(ctx, { webhookUrl: `https://other.bank.example:${port}/aml?token=tls-secret` });
    receiver.secret = good.webhookSigningSecret ?? "";
    // The fixture's self-signed certificate is the only one trusted; the server name is left as the dispatcher set it.
    const calls: string[] = [];
    const trustingFixture: FetchFn = (input, init) => {
      calls.push(String(init.tls?.serverName));
      return fetch(input, { ...init, tls: { ...init.tls, ca: CERT } });
    };

    enqueueEvents(ctx, good.tenant.id, 2);
    enqueueEvents(ctx, other.tenant.id, 1);
    // Two addresses: a failed handshake is an answer of sorts (the connection was made), not a reason to try the next.
    await dispatcher(ctx, async () => [{ address: "127.0.0.1" }, { address: "127.0.0.1" }], trustingFixture)();

    // Both arrived with the name in Host and a signature that verifies; nothing else arrived.
    expect(receiver.rejected).toEqual([]);
    expect(receiver.delivered.map((d) => d.host)).toEqual([`hooks.bank.example:${port}`, `hooks.bank.example:${port}`]);
    expect(outboxStatuses(ctx, good.tenant.id)).toEqual({ delivered: 2 });
    expect(outboxStatuses(ctx, other.tenant.id)).toEqual({ pending: 1 });
    const refused = attempts(ctx).filter((a) => a.url?.includes("other.bank.example"));
    expect(refused).toHaveLength(1);
    expect(refused[0]?.status_code).toBeNull();
    expect(refused[0]?.error).toBe("network error: 127.0.0.1: ERR_TLS_CERT_ALTNAME_INVALID (the TLS certificate does not name this host)");
    expect(calls.filter((name) => name === "other.bank.example")).toHaveLength(1);
    expect(JSON.stringify(attempts(ctx))).not.toContain("tls-secret");
  });

  test("an address that refuses the connection passes to the next one; one POST per attempt", async () => {
    const ctx = context(["127.0.0.0/8"]);
    const receiver = await startWebhookReceiver();
    cleanups.push(() => receiver.stop());
    const port = new URL(receiver.url).port;
    const tenant = makeTenant(ctx, { webhookUrl: `http://hooks.bank.example:${port}/hooks/aml` });
    receiver.secret = tenant.webhookSigningSecret ?? "";
    // The receiver listens on 127.0.0.1 only: 127.0.0.2 refuses the connection.
    const ids = enqueueEvents(ctx, tenant.tenant.id, 2);
    await dispatcher(ctx, async () => [{ address: "127.0.0.2" }, { address: "127.0.0.1" }])();
    expectEachDeliveredOnce(receiver, ids);
    expect(attempts(ctx).map((a) => a.status_code)).toEqual([204, 204]);

    // An answer, even a failing one, is not passed on: the event is not POSTed to a second address.
    receiver.failWith = 500;
    enqueueEvents(ctx, tenant.tenant.id, 1);
    await dispatcher(ctx, async () => [{ address: "127.0.0.1" }, { address: "127.0.0.1" }])();
    expect(receiver.failed).toHaveLength(1);
  });

  test("when every address refuses, the delivery log names them, and the URL's query is not recorded", async () => {
    const ctx = context(["127.0.0.0/8"]);
    const receiver = await startWebhookReceiver();
    const port = new URL(receiver.url).port;
    await receiver.stop();
    const tenant = makeTenant(ctx, { webhookUrl: `http://hooks.bank.example:${port}/hooks/aml?token=secret-token` });
    enqueueEvents(ctx, tenant.tenant.id, 1);
    await dispatcher(ctx, async () => [{ address: "127.0.0.2" }, { address: "127.0.0.3" }])();
    const [attempt] = attempts(ctx);
    expect(attempt?.status_code).toBeNull();
    expect(attempt?.error).toBe("network error: each of 127.0.0.2, 127.0.0.3: ECONNREFUSED (connection refused)");
    expect(JSON.stringify(attempts(ctx))).not.toContain("secret-token");
  });

  test("a receiver that answers no HTTP, or closes, is logged by the error's code and a few words, not by fetch's own text", async () => {
    const ctx = context(["127.0.0.0/8"]);
    const answers = ["HTTP/1.1 2OO OK\r\n\r\n", ""];
    const server = Bun.listen({
      hostname: "127.0.0.1",
      port: 0,
      socket: {
        data(socket) {
          socket.end(answers.shift() ?? "");
        },
      },
    });
    cleanups.push(() => server.stop(true));
    const tenant = makeTenant(ctx, { webhookUrl: `http://hooks.bank.example:${server.port}/aml?token=secret-token` });
    enqueueEvents(ctx, tenant.tenant.id, 1);
    await dispatcher(ctx, async () => [{ address: "127.0.0.1" }])();
    // An IP literal is connected to as written, without the addresses tried in front.
    const literal = makeTenant(ctx, { webhookUrl: `http://127.0.0.1:${server.port}/aml?token=secret-token` });
    enqueueEvents(ctx, literal.tenant.id, 1);
    await dispatcher(ctx, async () => [{ address: "127.0.0.1" }])();
    expect(attempts(ctx).map((a) => a.error)).toEqual([
      "network error: 127.0.0.1: Malformed_HTTP_Response (the answer was not valid HTTP)",
      "network error: ECONNRESET (the connection closed before an answer)",
    ]);
    const log = JSON.stringify(attempts(ctx));
    expect(log).not.toContain("verbose");
    expect(log).not.toContain("secret-token");
  });

  test("through a proxy from the environment, the POST goes to the proxy by name, not to an address", async () => {
    const ctx = context();
    const { proxy, seen } = recordingProxy();
    const tenant = makeTenant(ctx, { webhookUrl: "http://hooks.bank.example:8088/aml" });
    // Bun's fetch reads the proxy variables from process.env when it sends; the dispatcher decides from the same.
    setEnv({ HTTP_PROXY: `http://127.0.0.1:${proxy.port}` });
    enqueueEvents(ctx, tenant.tenant.id, 1);
    await dispatcher(ctx, async () => [{ address: "93.184.216.34" }], fetch, process.env as Record<string, string>)();
    expect(seen).toEqual(["POST http://hooks.bank.example:8088/aml"]);
    expect(outboxStatuses(ctx, tenant.tenant.id)).toEqual({ delivered: 1 });
  });

  test("a receiver NO_PROXY names goes direct to its checked address, though its pinned URL holds the address", async () => {
    const ctx = context();
    const { proxy, seen: proxySeen } = recordingProxy();
    const receiver = await startWebhookReceiver();
    cleanups.push(() => receiver.stop());
    const port = new URL(receiver.url).port;
    const tenant = makeTenant(ctx, { webhookUrl: `http://hooks.bank.example:${port}/aml` });
    receiver.secret = tenant.webhookSigningSecret ?? "";
    // As an operator sets them: in the environment fetch itself would read. Were fetch left to read
    // them, it would judge NO_PROXY against the pinned URL (http://127.0.0.1:port), which it does not
    // name, and send the delivery to the proxy.
    setEnv({ HTTP_PROXY: `http://127.0.0.1:${proxy.port}`, NO_PROXY: "localhost,.bank.example" });
    const ids = enqueueEvents(ctx, tenant.tenant.id, 2);
    await dispatcher(ctx, async () => [{ address: "127.0.0.1" }], fetch, process.env as Record<string, string>)();
    expect(proxySeen).toEqual([]);
    expectEachDeliveredOnce(receiver, ids);
    expect(new Set(receiver.delivered.map((d) => d.host))).toEqual(new Set([`hooks.bank.example:${port}`]));
  });

  test("ALL_PROXY carries a scheme that has no proxy of its own, by name", async () => {
    const ctx = context();
    const { proxy, seen } = recordingProxy();
    const tenant = makeTenant(ctx, { webhookUrl: "http://hooks.bank.example:8088/aml" });
    enqueueEvents(ctx, tenant.tenant.id, 1);
    await dispatcher(ctx, async () => [{ address: "93.184.216.34" }], fetch, { ALL_PROXY: `http://127.0.0.1:${proxy.port}` })();
    expect(seen).toEqual(["POST http://hooks.bank.example:8088/aml"]);
    expect(outboxStatuses(ctx, tenant.tenant.id)).toEqual({ delivered: 1 });
  });

  test("a name that resolves to a zone-scoped address is refused: it cannot be sent to as checked", async () => {
    const policy = { allowPrivate: ["fe80::/10"] };
    const check = await checkSendTarget("http://hooks.bank.example/aml", policy, async () => [{ address: "fe80::1%eth0" }], 1_000);
    expect(check).toMatchObject({ ok: false, reason: expect.stringContaining("fe80::1%eth0, an address with a zone id") });
  });

  test("every address must pass the policy; one private address refuses the receiver", async () => {
    const ctx = context();
    const tenant = makeTenant(ctx, { webhookUrl: "https://hooks.bank.example/aml" });
    let posts = 0;
    enqueueEvents(ctx, tenant.tenant.id, 1);
    await dispatcher(ctx, async () => [{ address: "93.184.216.34" }, { address: "10.1.2.3" }], () => {
      posts++;
      return Promise.resolve(new Response(null, { status: 204 }));
    })();
    expect(posts).toBe(0);
    expect(attempts(ctx)[0]?.error).toContain("resolves to private address 10.1.2.3");
  });
});

/** A delivery's targets as the dispatcher builds them: the receiver's (once per round), rotated for the attempt. */
function connectTargets(url: URL, addresses: readonly string[] | null, attempt = 1): ConnectTarget[] {
  return targetsForAttempt(pinnedTargets(url, addresses), attempt);
}

describe("connectTargets", () => {
  test("starts each attempt at the next address, so one that drops packets costs one attempt", () => {
    const url = new URL("http://hooks.bank.example/aml");
    const order = (attempt: number) => connectTargets(url, ["2001:db8::1", "93.184.216.34"], attempt).map((t) => t.address);
    expect(order(1)).toEqual(["2001:db8::1", "93.184.216.34"]);
    expect(order(2)).toEqual(["93.184.216.34", "2001:db8::1"]);
    expect(order(3)).toEqual(["2001:db8::1", "93.184.216.34"]);
  });

  test("refuses to build a target it could only send by name: no address, or one a URL cannot hold", () => {
    const url = new URL("http://hooks.bank.example/aml");
    expect(() => connectTargets(url, [])).toThrow("no checked address");
    expect(() => connectTargets(url, ["fe80::1%eth0"])).toThrow("not an address a URL can hold");
  });

  test("puts each address in the URL, the name in Host and, for https, in the TLS server name", () => {
    expect(connectTargets(new URL("https://Hooks.Bank.Example./aml?t=1"), ["93.184.216.34", "2606:2800:220:1::248"])).toEqual([
      { input: "https://93.184.216.34/aml?t=1", address: "93.184.216.34", host: "hooks.bank.example.", serverName: "hooks.bank.example" },
      { input: "https://[2606:2800:220:1::248]/aml?t=1", address: "2606:2800:220:1::248", host: "hooks.bank.example.", serverName: "hooks.bank.example" },
    ]);
    expect(connectTargets(new URL("http://hooks.bank.example:8443/aml"), ["93.184.216.34"])).toEqual([
      { input: "http://93.184.216.34:8443/aml", address: "93.184.216.34", host: "hooks.bank.example:8443", serverName: null },
    ]);
  });

  test("takes an address the URL writes its own way: IPv4-mapped, or IPv6 not in its shortest form", () => {
    // Both pass the send-time check (the mapped IPv4 is public); refusing them here failed every delivery.
    expect(connectTargets(new URL("http://hooks.bank.example/aml"), ["::ffff:93.184.216.34", "2001:0db8::1"])).toEqual([
      { input: "http://[::ffff:5db8:d822]/aml", address: "::ffff:93.184.216.34", host: "hooks.bank.example", serverName: null },
      { input: "http://[2001:db8::1]/aml", address: "2001:0db8::1", host: "hooks.bank.example", serverName: null },
    ]);
  });

  test("connects as written when there is nothing to pin (an IP literal or an allow-listed name)", () => {
    expect(connectTargets(new URL("https://10.0.0.5:9000/aml"), null)).toEqual([{ input: "https://10.0.0.5:9000/aml", address: null, host: null, serverName: null }]);
  });
});

describe("proxyFor", () => {
  const proxy = "http://proxy.bank.example:3128";
  test("the scheme's variable, either case, else ALL_PROXY", () => {
    expect(proxyFor(new URL("http://hooks.bank.example/"), { HTTP_PROXY: proxy })).toBe(proxy);
    expect(proxyFor(new URL("http://hooks.bank.example/"), { http_proxy: proxy })).toBe(proxy);
    expect(proxyFor(new URL("https://hooks.bank.example/"), { HTTP_PROXY: proxy })).toBeNull();
    expect(proxyFor(new URL("https://hooks.bank.example/"), { HTTPS_PROXY: proxy })).toBe(proxy);
    expect(proxyFor(new URL("https://hooks.bank.example/"), { ALL_PROXY: proxy })).toBe(proxy);
    expect(proxyFor(new URL("https://hooks.bank.example/"), { all_proxy: proxy, HTTPS_PROXY: "http://other:1" })).toBe("http://other:1");
    expect(proxyFor(new URL("https://hooks.bank.example/"), {})).toBeNull();
  });

  test("NO_PROXY names: *, the name, or a parent domain with or without a dot", () => {
    const url = new URL("https://hooks.bank.example:8443/");
    const via = (noProxy: string) => proxyFor(url, { HTTPS_PROXY: proxy, NO_PROXY: noProxy });
    expect(via("*")).toBeNull();
    expect(via("hooks.bank.example")).toBeNull();
    expect(via("HOOKS.bank.example.")).toBeNull();
    expect(via("other.example, .bank.example")).toBeNull();
    expect(via("*.bank.example")).toBeNull();
    expect(via("ank.example")).toBe(proxy);
    expect(via("other.example")).toBe(proxy);
    expect(via("")).toBe(proxy);
  });

  test("NO_PROXY ports: an entry with a port covers that port only; the scheme's default counts", () => {
    const via = (url: string, noProxy: string) => proxyFor(new URL(url), { HTTPS_PROXY: proxy, NO_PROXY: noProxy });
    expect(via("https://hooks.bank.example:8443/", "bank.example:8443")).toBeNull();
    expect(via("https://hooks.bank.example:8443/", "bank.example:443")).toBe(proxy);
    expect(via("https://hooks.bank.example/", "hooks.bank.example:443")).toBeNull();
    expect(via("https://[2001:db8::5]:8443/", "[2001:db8::5]:8443")).toBeNull();
    expect(via("https://[2001:db8::5]:8443/", "[2001:db8::5]:9443")).toBe(proxy);
  });

  test("NO_PROXY addresses and CIDR ranges cover a URL that holds an address, not a name", () => {
    const via = (url: string, noProxy: string) => proxyFor(new URL(url), { HTTPS_PROXY: proxy, NO_PROXY: noProxy });
    expect(via("https://10.20.30.40/", "10.0.0.0/8")).toBeNull();
    expect(via("https://10.20.30.40/", "10.20.30.40")).toBeNull();
    expect(via("https://10.20.30.40/", "10.20.30.0/24, 192.168.0.0/16")).toBeNull();
    expect(via("https://10.20.30.40/", "10.20.31.0/24")).toBe(proxy);
    expect(via("https://10.20.30.40/", "10.0.0.0/33")).toBe(proxy);
    expect(via("https://[2001:db8::5]/", "2001:db8::/32")).toBeNull();
    expect(via("https://[2001:db8::5]/", "2001:db9::/32")).toBe(proxy);
    // A name is never compared with an address range, whatever it resolves to.
    expect(via("https://hooks.bank.example/", "10.0.0.0/8")).toBe(proxy);
  });
});
