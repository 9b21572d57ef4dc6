// `aml tenant webhook set|rotate-secret` as an operator runs them: separate processes on the data
// folder of a running server. The server caches a tenant's webhook URL per connection (row-cache.ts)
// and drops it when another process commits (PRAGMA data_version); the dispatcher reads the URL and
// secret whenever it claims a tenant's due deliveries. So a CLI change must apply to the server's
// next screening, which is what these tests check, with real screenings and a real
// signature-checking receiver.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { hostname } from "node:os";
import { openContext } from "@/bootstrap";
import { loadConfig } from "@/config";
import type { AppContext, CallMeta } from "@/context";
import { type CreateTenantOptions, onboardTenant } from "@/tenants/create";
import { setWebhookUrl } from "@/tenants/webhook";
import { type LookupFn, systemLookup } from "@/webhooks/send-target";
import { isPrivateHost } from "@/webhooks/url-policy";
import { verifyWebhook } from "@/webhooks/verify";
import { runCli } from "../helpers/cli";
import { type CreatedJson, expectCleanFailure, SECRET_RE } from "../helpers/cli-folder";
import { type ListServer, startListServer } from "../helpers/lists";
import { makeTenant } from "../helpers/tenants";
import { startWebhookReceiver, type WebhookReceiver } from "../helpers/webhook-receiver";

let world: ListServer;
let receiver: WebhookReceiver;

beforeAll(async () => {
  receiver = await startWebhookReceiver();
  world = await startListServer();
});
afterAll(async () => {
  await world?.close();
  await receiver?.stop();
});

/** The CLI with the server's allow-list, as appliance/OPERATIONS.md tells the operator to run it. */
const SERVER_ENV = { AML_WEBHOOK_ALLOW_PRIVATE: "127.0.0.1" };
const aml = (args: string[], env: Record<string, string> = SERVER_ENV) => runCli(args, { dataDir: world.server.dataDir, env });

type WithSecret = CreatedJson;

function tenant(overrides: Record<string, unknown> = {}, options: CreateTenantOptions = {}) {
  return makeTenant(world.server.ctx, overrides, options);
}

function tenantRow(id: string): { webhookUrl: string | null; secret: string | null } {
  const row = world.server.ctx.db.sqlite
    .query<{ url: string | null; enc: string | null }, [string]>("SELECT webhook_url AS url, webhook_secret_enc AS enc FROM tenants WHERE id = ?")
    .get(id);
  return { webhookUrl: row?.url ?? null, secret: row?.enc ? world.server.ctx.secrets.open(row.enc) : null };
}

function outboxCount(id: string): number {
  return world.server.ctx.db.sqlite.query<{ n: number }, [string]>("SELECT count(*) AS n FROM webhook_outbox WHERE tenant_id = ?").get(id)?.n ?? 0;
}

/** A real screening through the running server. */
async function screen(apiKey: string, userReference: string): Promise<string> {
  const res = await fetch(`${world.server.url}/v1/screenings/check`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-api-key": apiKey },
    body: JSON.stringify({ fullName: "Dmitri Korvalev", userReference }),
  });
  expect(res.status).toBe(200);
  world.webhooks.wake();
  return ((await res.json()) as { id: string }).id;
}

const deliveredFor = (screeningId: string) => receiver.delivered.filter((d) => d.body.screeningId === screeningId);
const rejectedFor = (screeningId: string) => receiver.rejected.filter((d) => d.rawBody.includes(screeningId));

describe("tenant webhook set, seen by the running server", () => {
  test("a tenant without a secret (as the demo tenant): set prints one once, and the server's next screening is delivered signed with it", async () => {
    const created = tenant({}, { withoutSigningSecret: true });
    await screen(created.apiKey, "cli-before");
    expect(outboxCount(created.tenant.id)).toBe(0);

    const set = await aml(["tenant", "webhook", "set", created.tenant.slug, receiver.url]);
    expect(set.stderr).toBe("");
    expect(set.code).toBe(0);
    const secrets = set.stdout.match(SECRET_RE) ?? [];
    expect(secrets).toHaveLength(1);
    expect(set.stdout).toContain("shown once");
    expect(set.stdout).toMatch(new RegExp(`webhookUrl\\s+${receiver.url.replaceAll(".", "\\.")}`));
    expect(tenantRow(created.tenant.id)).toEqual({ webhookUrl: receiver.url, secret: secrets[0] ?? "none" });

    receiver.secret = secrets[0] ?? "";
    const id = await screen(created.apiKey, "cli-after");
    await receiver.waitUntil(() => deliveredFor(id).length === 1);
    expect(rejectedFor(id)).toEqual([]);
  });

  test("--clear: the server queues nothing more; setting a URL again prints no secret and keeps the old one", async () => {
    const created = tenant({ webhookUrl: receiver.url });
    receiver.secret = created.webhookSigningSecret ?? "";
    const first = await screen(created.apiKey, "cli-clear-1");
    await receiver.waitUntil(() => deliveredFor(first).length === 1);

    const cleared = await aml(["tenant", "webhook", "set", created.tenant.slug, "--clear"]);
    expect(cleared.code).toBe(0);
    expect(cleared.stdout).toMatch(/webhookUrl\s+\(none\)/);
    expect(cleared.stdout).not.toContain("whsec_");
    const queued = outboxCount(created.tenant.id);
    await screen(created.apiKey, "cli-clear-2");
    expect(outboxCount(created.tenant.id)).toBe(queued);

    const again = await aml(["--json", "tenant", "webhook", "set", created.tenant.id, receiver.url]);
    expect(again.code).toBe(0);
    const json = JSON.parse(again.stdout) as WithSecret;
    expect(json).toMatchObject({ id: created.tenant.id, slug: created.tenant.slug, webhookUrl: receiver.url, webhookSigningSecret: null });
    expect(tenantRow(created.tenant.id).secret).toBe(created.webhookSigningSecret);
    const third = await screen(created.apiKey, "cli-clear-3");
    await receiver.waitUntil(() => deliveredFor(third).length === 1);
  });
});

describe("tenant webhook rotate-secret, seen by the running server", () => {
  test("prints the new secret once; the next delivery is signed with it and not the old one, and a queued one's retry verifies with it", async () => {
    const created = tenant({ webhookUrl: receiver.url });
    const old = created.webhookSigningSecret ?? "";
    receiver.secret = old;
    const first = await screen(created.apiKey, "cli-rotate-1");
    await receiver.waitUntil(() => deliveredFor(first).length === 1);

    const rotated = await aml(["tenant", "webhook", "rotate-secret", created.tenant.slug]);
    expect(rotated.stderr).toBe("");
    expect(rotated.code).toBe(0);
    const secrets = rotated.stdout.match(SECRET_RE) ?? [];
    expect(secrets).toHaveLength(1);
    const fresh = secrets[0] ?? "";
    expect(fresh).not.toBe(old);
    expect(tenantRow(created.tenant.id).secret).toBe(fresh);

    const second = await screen(created.apiKey, "cli-rotate-2");
    await receiver.waitUntil(() => rejectedFor(second).length >= 1);
    for (const request of rejectedFor(second)) {
      const check = (secret: string) =>
        verifyWebhook({ secret, timestamp: request.headers["x-aml-timestamp"] ?? "", signature: request.headers["x-aml-signature"] ?? "", rawBody: request.rawBody }).ok;
      expect(check(fresh)).toBe(true);
      expect(check(old)).toBe(false);
    }
    receiver.secret = fresh;
    await receiver.waitUntil(() => deliveredFor(second).length === 1);
  });

  test("--json prints the tenant with webhookSigningSecret; the audit log has the rotation without it", async () => {
    const created = tenant({}, { withoutSigningSecret: true });
    const res = await aml(["--json", "tenant", "webhook", "rotate-secret", created.tenant.id]);
    expect(res.code).toBe(0);
    const json = JSON.parse(res.stdout) as WithSecret;
    expect(json).toMatchObject({ id: created.tenant.id, webhookUrl: null });
    expect(json.webhookSigningSecret).toMatch(/^whsec_[0-9A-Za-z]{40}$/);
    const audit = world.server.ctx.db.sqlite
      .query<{ action: string; actor_type: string; details: string }, [string]>("SELECT action, actor_type, details FROM audit_log WHERE chain = ? ORDER BY seq")
      .all(created.tenant.id);
    const entry = audit.find((e) => e.action === "webhook_secret.rotate");
    expect(entry?.actor_type).toBe("cli");
    expect(JSON.parse(entry?.details ?? "{}")).toEqual({ hadSecret: false, webhookUrl: null });
    expect(JSON.stringify(audit)).not.toContain("whsec_");
  });
});

describe("bad input exits 2 with one error line, and changes nothing", () => {
  test.concurrent.each([
    ["an ftp URL", (slug: string) => ["tenant", "webhook", "set", slug, "ftp://hooks.bank.example/x"], /^error: webhookUrl is refused: scheme ftp is not allowed; use http or https$/],
    ["credentials in the URL", (slug: string) => ["tenant", "webhook", "set", slug, "https://u:p@hooks.bank.example/x"], /credentials in the URL/],
    ["a private address off the allow-list", (slug: string) => ["tenant", "webhook", "set", slug, "http://10.9.8.7/x"], /host 10\.9\.8\.7 is on a private or loopback network; an operator must allow-list it \(AML_WEBHOOK_ALLOW_PRIVATE\)/],
  ])("set with %s", async (_what, args, message) => {
    const created = tenant({ webhookUrl: "https://hooks.bank.example/keep" });
    expectCleanFailure(await aml(args(created.tenant.slug)), 2, message);
    expect(tenantRow(created.tenant.id)).toEqual({ webhookUrl: "https://hooks.bank.example/keep", secret: created.webhookSigningSecret });
  });

  // Like a missing argument: the command's help follows the error.
  test.concurrent.each([
    ["neither a URL nor --clear", (slug: string) => ["tenant", "webhook", "set", slug]],
    ["both a URL and --clear", (slug: string) => ["tenant", "webhook", "set", slug, "https://hooks.bank.example/x", "--clear"]],
  ])("set with %s is a usage error, with the command's help", async (_what, args) => {
    const created = tenant({ webhookUrl: "https://hooks.bank.example/keep" });
    const result = await aml(args(created.tenant.slug));
    expect([result.code, result.stdout]).toEqual([2, ""]);
    expect(result.stderr.split("\n")[0]).toBe("error: Give either a webhook URL or --clear.");
    expect(result.stderr).toContain("Usage: aml tenant webhook set [options] <tenant> [url]");
    expect(tenantRow(created.tenant.id)).toEqual({ webhookUrl: "https://hooks.bank.example/keep", secret: created.webhookSigningSecret });
  });

  test("the allow-list is the CLI's own: without the server's setting, a receiver the server accepts is refused", async () => {
    const created = tenant();
    const without = await aml(["tenant", "webhook", "set", created.tenant.slug, receiver.url], {});
    expectCleanFailure(without, 2, /host 127\.0\.0\.1 is on a private or loopback network; an operator must allow-list it/);
    expect(tenantRow(created.tenant.id).webhookUrl).toBeNull();
  });

  test.concurrent.each([
    ["set", ["tenant", "webhook", "set", "no-such-tenant", "https://hooks.bank.example/x"]],
    ["rotate-secret", ["tenant", "webhook", "rotate-secret", "no-such-tenant"]],
  ])("%s on an unknown tenant", async (_what, args) => {
    expectCleanFailure(await aml(args), 2, "Tenant no-such-tenant not found");
  });
});

/** This machine's host name when the system resolver maps it to private addresses only (/etc/hosts usually does), else null. */
const systemPrivateName = await (async () => {
  const name = hostname().toLowerCase();
  if (isPrivateHost(name)) return null;
  const addresses = await systemLookup(name).catch(() => []);
  return addresses.length > 0 && addresses.every((a) => isPrivateHost(a.address)) ? name : null;
})();

describe("host names are resolved by the CLI too", () => {
  // The CLI process resolves with the system resolver, which cannot be stubbed from here. So the
  // verbs it runs (setWebhookUrl, onboardTenant) are run in-process first, on the same data folder
  // with a context built as the CLI builds its own, with a stub resolver: that refusal always runs.
  const PRIVATE_NAME = "hooks.resolves-private.example";
  const lookup: LookupFn = async (host) => (host === PRIVATE_NAME ? [{ address: "10.20.30.40" }] : []);
  const meta: CallMeta = { actor: { type: "cli", id: "test" } };
  /** A context as the CLI opens one on the server's data folder: its own config, from `env`. */
  async function withCliContext<T>(env: Record<string, string>, body: (ctx: AppContext) => Promise<T>): Promise<T> {
    const ctx = openContext(loadConfig({ env, flags: { dataDir: world.server.dataDir, logLevel: "silent" } }));
    try {
      return await body(ctx);
    } finally {
      ctx.db.close();
    }
  }

  test("the verbs refuse a name that resolves to a private address off the CLI's allow-list (stub resolver)", async () => {
    const url = `http://${PRIVATE_NAME}:8080/hook`;
    const created = tenant();
    const slug = `resolving-verb-${process.pid}`;
    await withCliContext({}, async (ctx) => {
      const set = setWebhookUrl(ctx, created.tenant.slug, { webhookUrl: url }, meta, lookup);
      await expect(set).rejects.toThrow(`webhookUrl is refused: host ${PRIVATE_NAME} resolves to private address 10.20.30.40`);
      const input = { name: "Resolving", slug, contactEmail: "k@resolving.example", plan: "p", enabledLists: ["UN"], webhookUrl: url };
      await expect(onboardTenant(ctx, input, meta, lookup)).rejects.toThrow(`webhookUrl is refused: host ${PRIVATE_NAME} resolves to private address 10.20.30.40`);
    });
    expect(tenantRow(created.tenant.id).webhookUrl).toBeNull();
    expect(world.server.ctx.db.sqlite.query<{ n: number }, [string]>("SELECT count(*) AS n FROM tenants WHERE slug = ?").get(slug)?.n).toBe(0);
    // Allow-listing the name in the CLI's own config lets it through, as the server's config would.
    await withCliContext({ AML_WEBHOOK_ALLOW_PRIVATE: PRIVATE_NAME }, (ctx) => setWebhookUrl(ctx, created.tenant.slug, { webhookUrl: url }, meta, lookup));
    expect(tenantRow(created.tenant.id).webhookUrl).toBe(url);
  });

  // The CLI process itself, where the system resolver maps this machine's host name to a private address.
  test.skipIf(systemPrivateName === null)(`the CLI, with the system resolver: this machine's host name (${hostname()}), resolving to a private address, is refused by set and tenant create`, async () => {
    const name = systemPrivateName ?? "";
    const url = `http://${name}:8080/hook`;
    const created = tenant();
    expectCleanFailure(await aml(["tenant", "webhook", "set", created.tenant.slug, url], {}), 2, new RegExp(`webhookUrl is refused: host ${name} resolves to private address`));
    expect(tenantRow(created.tenant.id).webhookUrl).toBeNull();
    const slug = `resolving-cli-${process.pid}`;
    const onboard = await aml(
      ["tenant", "create", "--name", "Resolving", "--slug", slug, "--contact-email", "k@resolving.example", "--plan", "p", "--lists", "UN", "--webhook-url", url],
      {},
    );
    expectCleanFailure(onboard, 2, /webhookUrl is refused: host \S+ resolves to private address/);
    expect(world.server.ctx.db.sqlite.query<{ n: number }, [string]>("SELECT count(*) AS n FROM tenants WHERE slug = ?").get(slug)?.n).toBe(0);
    // Allow-listing the name (as the server's config would) lets it through.
    const allowed = await aml(["tenant", "webhook", "set", created.tenant.slug, url], { AML_WEBHOOK_ALLOW_PRIVATE: name });
    expect(allowed.code).toBe(0);
  });
});
