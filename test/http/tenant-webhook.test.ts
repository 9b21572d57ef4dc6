// PUT /v1/tenants/{id}/webhook and POST /v1/tenants/{id}/webhook/secret against the real IdP and the
// real server with `aml serve`'s extensions (watchlists, screening, webhook dispatcher): an admin
// bearer token sets, changes and clears the URL and rotates the secret; real screenings are then
// delivered to a real, signature-checking receiver.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { hostname } from "node:os";
import { openDb } from "@/storage/db";
import type { CreateTenantOptions } from "@/tenants/create";
import { ensureDemoTenant } from "@/tenants/demo";
import type { Tenant } from "@/tenants/schemas";
import { importListFiles } from "@/watchlists/import";
import type { WebhookExtension } from "@/webhooks/extension";
import { type LookupFn, systemLookup } from "@/webhooks/send-target";
import { isPrivateHost } from "@/webhooks/url-policy";
import { verifyWebhook } from "@/webhooks/verify";
import { runCli } from "../helpers/cli";
import { allExtensions, FAST_WEBHOOKS, fixtureFiles } from "../helpers/lists";
import { makeTenant } from "../helpers/tenants";
import { type RejectedRequest, startWebhookReceiver, type WebhookReceiver } from "../helpers/webhook-receiver";
import { call, type Credential, type OidcStack, type Problem, startOidcStack } from "../oidc/harness";

let stack: OidcStack;
let admin: Credential;
let webhooks: WebhookExtension;
let receiver: WebhookReceiver;
let other: WebhookReceiver;

beforeAll(async () => {
  receiver = await startWebhookReceiver();
  other = await startWebhookReceiver();
  stack = await startOidcStack({
    clients: (seed) => [{ clientId: "hook-analyst", clientSecret: "hook-analyst-secret", roles: ["compliance_analyst"], tenantId: seed.id }],
    env: { AML_WEBHOOK_ALLOW_PRIVATE: "127.0.0.1", AML_WEBHOOK_TIMEOUT_MS: "2000" },
    extensions: async (config) => {
      // The fictional fixture lists, imported before the server starts, so screenings run.
      const db = openDb(config.dataDir);
      try {
        await importListFiles(db, fixtureFiles(), { actor: { type: "cli", id: "test" } });
      } finally {
        db.close();
      }
      const built = allExtensions({ webhooks: FAST_WEBHOOKS });
      webhooks = built.webhooks;
      return built.extensions;
    },
  });
  admin = { bearer: await stack.token() };
});
afterAll(async () => {
  await stack?.close();
  await receiver?.stop();
  await other?.stop();
});

type WithSecret = Tenant & { webhookSigningSecret: string | null };
/** A 200 body or a problem body (whose numeric status would clash with the tenant's). */
type Answer = WithSecret & Omit<Problem, "status">;
type AuditEntry = { action: string; actor: { type: string; id: string }; details: Record<string, unknown>; correlationId: string | null };

const api = <T = Record<string, unknown>>(method: string, path: string, options: Parameters<typeof call>[3] = {}) =>
  call<T>(stack.server.url, method, path, options);
const putWebhook = (id: string, body: unknown, credential: Credential = admin) => api<Answer>("PUT", `/v1/tenants/${id}/webhook`, { credential, body });
const rotate = (id: string, credential: Credential = admin) => api<Answer>("POST", `/v1/tenants/${id}/webhook/secret`, { credential });

/** A tenant of this file, onboarded in-process (no URL unless given). */
function tenant(overrides: Record<string, unknown> = {}, options: CreateTenantOptions = {}) {
  return makeTenant(stack.server.ctx, overrides, options);
}

function sealedSecret(id: string): string | null {
  const row = stack.server.ctx.db.sqlite.query<{ s: string | null }, [string]>("SELECT webhook_secret_enc AS s FROM tenants WHERE id = ?").get(id);
  return row?.s ? stack.server.ctx.secrets.open(row.s) : null;
}

function outboxCount(id: string): number {
  return stack.server.ctx.db.sqlite.query<{ n: number }, [string]>("SELECT count(*) AS n FROM webhook_outbox WHERE tenant_id = ?").get(id)?.n ?? 0;
}

/** One real screening with the tenant's API key; returns its id. */
async function screen(apiKey: string, userReference: string): Promise<string> {
  const res = await api<{ id: string }>("POST", "/v1/screenings/check", { credential: { apiKey }, body: { fullName: "Dmitri Korvalev", userReference } });
  expect(res.status).toBe(200);
  webhooks.wake();
  return res.body.id;
}

const deliveredFor = (r: WebhookReceiver, screeningId: string) => r.delivered.filter((d) => d.body.screeningId === screeningId);
const rejectedFor = (r: WebhookReceiver, screeningId: string) => r.rejected.filter((d) => d.rawBody.includes(screeningId));

function verifiesWith(secret: string, request: RejectedRequest): boolean {
  return verifyWebhook({ secret, timestamp: request.headers["x-aml-timestamp"] ?? "", signature: request.headers["x-aml-signature"] ?? "", rawBody: request.rawBody }).ok;
}

describe("PUT /v1/tenants/{id}/webhook", () => {
  test("a tenant onboarded without a URL already has its secret: setting a URL shows none, and deliveries are signed with the one from onboarding", async () => {
    const created = tenant();
    const secret = created.webhookSigningSecret ?? "";
    expect(secret).toMatch(/^whsec_[0-9A-Za-z]{40}$/);
    expect(sealedSecret(created.tenant.id)).toBe(secret);
    const before = await screen(created.apiKey, "before-url");
    expect(outboxCount(created.tenant.id)).toBe(0);

    const res = await putWebhook(created.tenant.id, { webhookUrl: receiver.url });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toStartWith("application/json");
    expect(res.body).toMatchObject({ id: created.tenant.id, slug: created.tenant.slug, webhookUrl: receiver.url, webhookSigningSecret: null });
    expect(sealedSecret(created.tenant.id)).toBe(secret);

    receiver.secret = secret;
    const id = await screen(created.apiKey, "after-url");
    await receiver.waitUntil(() => deliveredFor(receiver, id).length === 1);
    expect(deliveredFor(receiver, before)).toEqual([]);
    expect(rejectedFor(receiver, id)).toEqual([]);
  });

  test("the demo tenant has no secret: setting a URL issues one, shown once; screenings are then delivered, signed with it", async () => {
    const demo = ensureDemoTenant(stack.server.ctx, { actor: { type: "system", id: "demo" } });
    expect(sealedSecret(demo.tenantId)).toBeNull();

    const res = await putWebhook(demo.tenantId, { webhookUrl: receiver.url });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: demo.tenantId, slug: "demo", webhookUrl: receiver.url });
    const secret = res.body.webhookSigningSecret ?? "";
    expect(secret).toMatch(/^whsec_[0-9A-Za-z]{40}$/);
    expect(sealedSecret(demo.tenantId)).toBe(secret);

    // Never readable again.
    const shown = await api<Tenant>("GET", `/v1/tenants/${demo.tenantId}`, { credential: admin });
    expect(shown.body.webhookUrl).toBe(receiver.url);
    const listed = await api("GET", "/v1/tenants", { credential: admin });
    for (const text of [shown.text, listed.text]) expect(text).not.toContain(secret);

    receiver.secret = secret;
    const id = await screen(demo.apiKey, "demo-after-url");
    await receiver.waitUntil(() => deliveredFor(receiver, id).length === 1);
    expect(rejectedFor(receiver, id)).toEqual([]);
  });

  test("changing the URL keeps the secret; events queued for the old URL go to the new one", async () => {
    const created = tenant({ webhookUrl: receiver.url });
    const secret = created.webhookSigningSecret ?? "";
    receiver.secret = secret;
    other.secret = secret;
    // The old receiver fails: the event stays queued for a retry.
    receiver.failWith = 503;
    try {
      const id = await screen(created.apiKey, "moved");
      await receiver.waitUntil(() => receiver.failed.some((d) => d.body.screeningId === id));

      const res = await putWebhook(created.tenant.id, { webhookUrl: other.url });
      expect(res.status).toBe(200);
      expect(res.body.webhookUrl).toBe(other.url);
      expect(res.body.webhookSigningSecret).toBeNull();
      expect(sealedSecret(created.tenant.id)).toBe(secret);

      await other.waitUntil(() => deliveredFor(other, id).length === 1);
      expect(other.rejected).toEqual([]);
      expect(deliveredFor(receiver, id)).toEqual([]);
    } finally {
      receiver.failWith = null;
    }
  });

  test("null clears the URL: nothing more is queued, the secret is kept, and setting a URL again issues none", async () => {
    const created = tenant({ webhookUrl: receiver.url });
    const cleared = await putWebhook(created.tenant.id, { webhookUrl: null });
    expect(cleared.status).toBe(200);
    expect(cleared.body).toMatchObject({ webhookUrl: null, webhookSigningSecret: null });
    await screen(created.apiKey, "cleared");
    expect(outboxCount(created.tenant.id)).toBe(0);

    const again = await putWebhook(created.tenant.id, { webhookUrl: receiver.url });
    expect(again.status).toBe(200);
    expect(again.body.webhookSigningSecret).toBeNull();
    expect(sealedSecret(created.tenant.id)).toBe(created.webhookSigningSecret);
  });

  test.each([
    ["an ftp URL", { webhookUrl: "ftp://hooks.bank.example/aml" }, /scheme ftp is not allowed/],
    ["credentials in the URL", { webhookUrl: "https://user:pw@hooks.bank.example/aml" }, /credentials in the URL/],
    ["not a URL", { webhookUrl: "hooks.bank.example/aml" }, /not a valid absolute URL/],
    ["a private address not on the allow-list", { webhookUrl: "http://10.1.2.3/aml" }, /host 10\.1\.2\.3 is on a private or loopback network/],
    ["localhost", { webhookUrl: "http://localhost:8080/aml" }, /host localhost is on a private/],
    ["6to4 of loopback", { webhookUrl: "http://[2002:7f00:1::]/aml" }, /is on a private/],
    ["an empty string", { webhookUrl: "" }, /webhookUrl/],
    ["a number", { webhookUrl: 42 }, /webhookUrl/],
    ["no webhookUrl member", {}, /webhookUrl/],
    ["an extra member", { webhookUrl: "https://hooks.bank.example/aml", webhookSigningSecret: "whsec_mine" }, /webhookSigningSecret|unrecognized|Unrecognized/],
  ])("400 for %s, naming the field, and nothing changes", async (_what, body, detail) => {
    const created = tenant({ webhookUrl: "https://hooks.bank.example/before" });
    const res = await putWebhook(created.tenant.id, body);
    expect(res.status).toBe(400);
    expect(res.headers.get("content-type")).toStartWith("application/problem+json");
    expect(res.body.code).toBe("VALIDATION_FAILED");
    expect(`${res.body.detail} ${JSON.stringify(res.body.errors ?? [])}`).toMatch(detail);
    expect((await api<Tenant>("GET", `/v1/tenants/${created.tenant.id}`, { credential: admin })).body.webhookUrl).toBe("https://hooks.bank.example/before");
  });

  test("a URL policy refusal names webhookUrl in errors[]", async () => {
    const res = await putWebhook(tenant().tenant.id, { webhookUrl: "http://192.168.1.10/aml" });
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual([{ field: "webhookUrl", message: expect.stringContaining("192.168.1.10") }]);
  });

  test("an allow-listed private receiver is accepted", async () => {
    const res = await putWebhook(tenant().tenant.id, { webhookUrl: "http://127.0.0.1:9/aml" });
    expect(res.status).toBe(200);
  });
});

/** Names the strict server's resolver answers itself; any other name goes to the system resolver. */
const PRIVATE_NAME = "hooks.resolves-private.example";
const PUBLIC_NAME = "hooks.resolves-public.example";
const receiverLookup: LookupFn = async (host) => {
  if (host === PRIVATE_NAME) return [{ address: "203.0.113.10" }, { address: "10.20.30.40" }];
  if (host === PUBLIC_NAME) return [{ address: "203.0.113.10" }];
  return systemLookup(host);
};

/** This machine's host name when the system resolver maps it to private addresses only (/etc/hosts usually does), else null. */
const systemPrivateName = await (async () => {
  const name = hostname().toLowerCase();
  if (isPrivateHost(name)) return null;
  const addresses = await systemLookup(name).catch(() => []);
  return addresses.length > 0 && addresses.every((a) => isPrivateHost(a.address)) ? name : null;
})();

describe("host names are resolved when the URL is set", () => {
  // A server of its own, with no allow-list, whose admin routes resolve receiver names with
  // receiverLookup: the refusal runs whatever this machine's DNS says.
  let strict: OidcStack;
  beforeAll(async () => {
    strict = await startOidcStack({ receiverLookup });
  });
  afterAll(() => strict?.close());
  const strictApi = async <T = Record<string, unknown>>(method: string, path: string, body: unknown) =>
    call<T>(strict.server.url, method, path, { credential: { bearer: await strict.token() }, body });
  const currentUrl = async () => (await strictApi<Tenant>("GET", `/v1/tenants/${strict.seed.id}`, undefined)).body.webhookUrl;

  let onboarded = 0;
  /** PUT and onboarding with `url` are both refused, naming `name` and a private address; nothing changes. */
  async function expectRefused(name: string, url: string, address: RegExp) {
    const before = await currentUrl();
    const put = await strictApi<Problem>("PUT", `/v1/tenants/${strict.seed.id}/webhook`, { webhookUrl: url });
    expect(put.status).toBe(400);
    expect(put.body.code).toBe("VALIDATION_FAILED");
    expect(put.body.detail).toMatch(new RegExp(`^webhookUrl is refused: host ${name.replaceAll(".", "\\.")} resolves to private address ${address.source}; an operator must allow-list it \\(AML_WEBHOOK_ALLOW_PRIVATE\\)`));
    expect(put.body.errors?.[0]?.field).toBe("webhookUrl");
    expect(await currentUrl()).toBe(before);

    onboarded++;
    const slug = `resolving-${process.pid}-${onboarded}`;
    const onboard = await strictApi<Problem>("POST", "/v1/tenants", {
      name: "Resolving Bank",
      slug,
      contactEmail: "k@resolving.example",
      plan: "p",
      enabledLists: ["UN"],
      webhookUrl: url,
    });
    expect(onboard.status).toBe(400);
    expect(onboard.body.detail).toMatch(/^webhookUrl is refused: host \S+ resolves to private address/);
    expect(onboard.body.errors?.[0]?.field).toBe("webhookUrl");
    expect(strict.server.ctx.db.sqlite.query<{ n: number }, [string]>("SELECT count(*) AS n FROM tenants WHERE slug = ?").get(slug)?.n).toBe(0);
  }

  test("a name that resolves to a private address is refused by PUT and by onboarding, with the address in the message", async () => {
    await expectRefused(PRIVATE_NAME, `http://${PRIVATE_NAME}:8080/aml`, /10\.20\.30\.40/);
  });

  test("a name that resolves to public addresses only is accepted", async () => {
    const res = await strictApi<WithSecret>("PUT", `/v1/tenants/${strict.seed.id}/webhook`, { webhookUrl: `https://${PUBLIC_NAME}/aml` });
    expect(res.status).toBe(200);
    expect(res.body.webhookUrl).toBe(`https://${PUBLIC_NAME}/aml`);
  });

  test("a name that does not resolve (yet) is accepted: the dispatcher resolves it again when it claims the tenant's deliveries", async () => {
    const res = await strictApi<WithSecret>("PUT", `/v1/tenants/${strict.seed.id}/webhook`, { webhookUrl: "https://hooks.not-in-dns.invalid/aml" });
    expect(res.status).toBe(200);
    expect(res.body.webhookUrl).toBe("https://hooks.not-in-dns.invalid/aml");
  });

  // The same refusal through the system resolver, where this machine's host name resolves to a private address.
  test.skipIf(systemPrivateName === null)(`with the system resolver: this machine's host name (${hostname()}), resolving to a private address, is refused`, async () => {
    const name = systemPrivateName ?? "";
    await expectRefused(name, `http://${name}:8080/aml`, /\S+/);
  });
});

describe("POST /v1/tenants/{id}/webhook/secret", () => {
  test("returns a new secret once; the next delivery is signed with it and not with the old one, retries of queued events included", async () => {
    const created = tenant({ webhookUrl: receiver.url });
    const old = created.webhookSigningSecret ?? "";
    receiver.secret = old;
    const first = await screen(created.apiKey, "rotate-1");
    await receiver.waitUntil(() => deliveredFor(receiver, first).length === 1);

    const res = await rotate(created.tenant.id);
    expect(res.status).toBe(200);
    const fresh = res.body.webhookSigningSecret ?? "";
    expect(fresh).toMatch(/^whsec_[0-9A-Za-z]{40}$/);
    expect(fresh).not.toBe(old);
    expect(res.body).toMatchObject({ id: created.tenant.id, webhookUrl: receiver.url });
    expect(sealedSecret(created.tenant.id)).toBe(fresh);
    const shown = await api("GET", `/v1/tenants/${created.tenant.id}`, { credential: admin });
    expect(shown.text).not.toContain(fresh);
    expect(shown.text).not.toContain("whsec_");

    // The receiver still holds the old secret: the next delivery fails its check, and is signed with the new secret.
    const second = await screen(created.apiKey, "rotate-2");
    await receiver.waitUntil(() => rejectedFor(receiver, second).length >= 1);
    for (const request of rejectedFor(receiver, second)) {
      expect(request.reason).toBe("signature_mismatch");
      expect(verifiesWith(fresh, request)).toBe(true);
      expect(verifiesWith(old, request)).toBe(false);
    }
    // The receiver learns the new secret; the queued delivery's retry verifies with it.
    receiver.secret = fresh;
    await receiver.waitUntil(() => deliveredFor(receiver, second).length === 1);
    expect(deliveredFor(receiver, second)[0]?.signature).toBeString();
  });

  test("each rotation returns a different secret; a tenant without a URL can get one ahead of its URL", async () => {
    const created = tenant();
    const a = await rotate(created.tenant.id);
    const b = await rotate(created.tenant.id);
    expect(a.status).toBe(200);
    expect(a.body.webhookUrl).toBeNull();
    expect(a.body.webhookSigningSecret).toMatch(/^whsec_/);
    expect(b.body.webhookSigningSecret).not.toBe(a.body.webhookSigningSecret);
    // Setting a URL afterwards keeps the rotated secret: none is issued.
    const put = await putWebhook(created.tenant.id, { webhookUrl: "https://hooks.bank.example/aml" });
    expect(put.body.webhookSigningSecret).toBeNull();
    expect(sealedSecret(created.tenant.id)).toBe(b.body.webhookSigningSecret);
  });
});

describe("audit", () => {
  test("both changes are audited with the token's sub and the correlation id, without any secret", async () => {
    // Without a secret, so the first URL issues one (webhookSigningSecretIssued: true).
    const created = tenant({}, { withoutSigningSecret: true });
    const set = await api<WithSecret>("PUT", `/v1/tenants/${created.tenant.id}/webhook`, {
      credential: admin,
      body: { webhookUrl: "https://hooks.bank.example/one" },
      headers: { "x-correlation-id": "hook-audit-1" },
    });
    // A query string (a receiver token, often) is kept on the tenant but not recorded in the audit log.
    const two = await putWebhook(created.tenant.id, { webhookUrl: "https://hooks.bank.example/two?token=tok-audit-2" });
    expect(two.body.webhookUrl).toBe("https://hooks.bank.example/two?token=tok-audit-2");
    const withQuery = await rotate(created.tenant.id);
    await putWebhook(created.tenant.id, { webhookUrl: null });
    const rotated = await rotate(created.tenant.id);

    const audit = await api<{ items: AuditEntry[] }>("GET", "/v1/audit", { credential: { apiKey: created.apiKey } });
    expect(audit.status).toBe(200);
    const entries = audit.body.items.filter((e) => e.action.startsWith("webhook_")).reverse();
    expect(entries.map((e) => e.action)).toEqual(["webhook_url.set", "webhook_url.set", "webhook_secret.rotate", "webhook_url.set", "webhook_secret.rotate"]);
    expect(entries.map((e) => e.details)).toEqual([
      { previous: null, webhookUrl: "https://hooks.bank.example/one", webhookSigningSecretIssued: true },
      { previous: "https://hooks.bank.example/one", webhookUrl: "https://hooks.bank.example/two", webhookSigningSecretIssued: false },
      { hadSecret: true, webhookUrl: "https://hooks.bank.example/two" },
      { previous: "https://hooks.bank.example/two", webhookUrl: null, webhookSigningSecretIssued: false },
      { hadSecret: true, webhookUrl: null },
    ]);
    expect(audit.text).not.toContain("tok-audit-2");
    expect(entries[0]?.correlationId).toBe("hook-audit-1");
    for (const entry of entries) expect(entry.actor).toEqual({ type: "oidc", id: "aml-admin-cli" });
    expect(audit.text).not.toContain(set.body.webhookSigningSecret ?? "missing");
    expect(audit.text).not.toContain(withQuery.body.webhookSigningSecret ?? "missing");
    expect(audit.text).not.toContain(rotated.body.webhookSigningSecret ?? "missing");
    expect(audit.text).not.toContain("whsec_");
    expect((await api<{ intact: boolean }>("GET", "/v1/audit/verify", { credential: { apiKey: created.apiKey } })).body.intact).toBe(true);
  });
});

describe("audit of onboarding", () => {
  test("tenant.create records the webhook URL without its query string; the tenant keeps the full URL", async () => {
    const url = "https://hooks.bank.example/onboard?token=tok-onboard-1&x=2";
    const res = await api<WithSecret & { apiKey: string }>("POST", "/v1/tenants", {
      credential: admin,
      body: { name: "Query Bank", slug: `query-bank-${process.pid}`, contactEmail: "k@query.example", plan: "p", enabledLists: ["UN"], webhookUrl: url },
    });
    expect(res.status).toBe(201);
    expect(res.body.webhookUrl).toBe(url);
    expect((await api<Tenant>("GET", `/v1/tenants/${res.body.id}`, { credential: admin })).body.webhookUrl).toBe(url);
    const audit = await api<{ items: AuditEntry[] }>("GET", "/v1/audit?action=tenant.create", { credential: { apiKey: res.body.apiKey } });
    expect(audit.status).toBe(200);
    const [entry] = audit.body.items;
    expect((entry?.details["tenant"] as Tenant | undefined)?.webhookUrl).toBe("https://hooks.bank.example/onboard");
    expect(audit.text).not.toContain("tok-onboard-1");
  });
});

describe("admin only", () => {
  test("an API key or a token without the admin role → 403; no credential → 401; nothing changes", async () => {
    const created = tenant({ webhookUrl: "https://hooks.bank.example/keep" });
    const analyst = { bearer: await stack.token("hook-analyst") };
    for (const credential of [{ apiKey: created.apiKey }, { bearer: created.apiKey }, { apiKey: stack.seed.apiKey }, analyst]) {
      const put = await putWebhook(created.tenant.id, { webhookUrl: "https://evil.example/aml" }, credential);
      expect([put.status, put.body.code]).toEqual([403, "FORBIDDEN"]);
      const rotated = await rotate(created.tenant.id, credential);
      expect([rotated.status, rotated.body.code]).toEqual([403, "FORBIDDEN"]);
      expect(rotated.text).not.toContain("whsec_");
    }
    for (const res of [await putWebhook(created.tenant.id, { webhookUrl: "https://evil.example/aml" }, null), await rotate(created.tenant.id, null)]) {
      expect(res.status).toBe(401);
      expect(res.body.code).toBe("UNAUTHENTICATED");
      expect(res.headers.get("www-authenticate")).toContain("Bearer");
    }
    expect((await api<Tenant>("GET", `/v1/tenants/${created.tenant.id}`, { credential: admin })).body.webhookUrl).toBe("https://hooks.bank.example/keep");
    expect(sealedSecret(created.tenant.id)).toBe(created.webhookSigningSecret);
  });

  test("an unknown or malformed tenant id → 404", async () => {
    for (const id of [crypto.randomUUID(), "not-a-uuid", stack.seed.slug]) {
      const put = await putWebhook(id, { webhookUrl: "https://hooks.bank.example/aml" });
      expect([put.status, put.body.code]).toEqual([404, "NOT_FOUND"]);
      expect(put.headers.get("content-type")).toStartWith("application/problem+json");
      const rotated = await rotate(id);
      expect([rotated.status, rotated.body.code]).toEqual([404, "NOT_FOUND"]);
    }
  });

  test("both routes are in the policy table as Admin, bearer only, and documented in OpenAPI", async () => {
    const policies = await api<{ items: Array<{ method: string; path: string; policy: string; credentials: string }> }>("GET", "/docs/policies");
    expect(policies.body.items).toContainEqual({ method: "PUT", path: "/v1/tenants/{id}/webhook", policy: "Admin", credentials: "bearer only" });
    expect(policies.body.items).toContainEqual({ method: "POST", path: "/v1/tenants/{id}/webhook/secret", policy: "Admin", credentials: "bearer only" });
    const doc = await api<{ paths: Record<string, Record<string, { summary?: string; "x-policy"?: string }>> }>("GET", "/openapi.json");
    expect(doc.body.paths["/v1/tenants/{id}/webhook"]?.put).toMatchObject({ summary: "Set or clear the webhook URL", "x-policy": "Admin" });
    expect(doc.body.paths["/v1/tenants/{id}/webhook/secret"]?.post).toMatchObject({ summary: "Rotate the webhook signing secret", "x-policy": "Admin" });
  });
});

describe("the CLI's --remote mode uses the same routes", () => {
  test("tenant webhook set and rotate-secret with an admin token", async () => {
    // Without a secret, so set issues one and prints it.
    const created = tenant({}, { withoutSigningSecret: true });
    const token = (admin as { bearer: string }).bearer;
    const aml = (args: string[]) => runCli(["--remote", stack.server.url, "--token", token, "--json", ...args], { dataDir: "/nonexistent-aml-data" });
    const set = await aml(["tenant", "webhook", "set", created.tenant.slug, "https://hooks.bank.example/remote"]);
    expect(set.stderr).toBe("");
    expect(set.code).toBe(0);
    const setJson = JSON.parse(set.stdout) as WithSecret;
    expect(setJson).toMatchObject({ id: created.tenant.id, webhookUrl: "https://hooks.bank.example/remote" });
    expect(setJson.webhookSigningSecret).toMatch(/^whsec_/);

    const rotated = await aml(["tenant", "webhook", "rotate-secret", created.tenant.id]);
    expect(rotated.code).toBe(0);
    const rotatedJson = JSON.parse(rotated.stdout) as WithSecret;
    expect(rotatedJson.webhookSigningSecret).toMatch(/^whsec_/);
    expect(rotatedJson.webhookSigningSecret).not.toBe(setJson.webhookSigningSecret);
    expect(sealedSecret(created.tenant.id)).toBe(rotatedJson.webhookSigningSecret);

    const refused = await aml(["tenant", "webhook", "set", created.tenant.slug, "ftp://hooks.bank.example/x"]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/^error: webhookUrl is refused: scheme ftp is not allowed; use http or https \(HTTP 400\)/);
  });
});
