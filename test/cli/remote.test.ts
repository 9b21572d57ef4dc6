// `aml login` against the real IdP (client_credentials found through discovery), then
// `aml --remote <url> …` against the real server: the CLI as an operator runs it, as a process.
// XDG_CONFIG_HOME points at a temp dir, so the saved token never touches the real home.
import { chmodSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { loadToken, saveToken, tokenFile } from "@/cli/token-store";
import type { Tenant } from "@/tenants/schemas";
import { runCli } from "../helpers/cli";
import { ADMIN_CLI } from "../helpers/oidc-idp";
import { call, jwtPayload, type OidcStack, startOidcStack } from "../oidc/harness";

let stack: OidcStack;
let home: string;
let dataDir: string;
let configHome: string;

beforeAll(async () => {
  stack = await startOidcStack({
    clients: (seed) => [{ clientId: "analyst-cli", clientSecret: "analyst-cli-secret", roles: ["compliance_analyst"], tenantId: seed.id }],
  });
  home = mkdtempSync(join(tmpdir(), "aml-cli-remote-"));
  dataDir = join(home, "unused-data");
  configHome = join(home, "xdg");
});
afterAll(async () => {
  await stack?.close();
  if (home) rmSync(home, { recursive: true, force: true });
});

const aml = (args: string[], env: Record<string, string> = {}) =>
  runCli(args, { dataDir, env: { XDG_CONFIG_HOME: configHome, ...env } });
const remote = (args: string[], env: Record<string, string> = {}) => aml(["--remote", stack.server.url, ...args], env);
const occurrences = (haystack: string, needle: string) => haystack.split(needle).length - 1;
const tokenPath = () => join(configHome, "aml", "token.json");

describe("aml login + aml --remote", () => {
  const slug = `remote-bank-${process.pid}`;

  test("login: client_credentials via discovery; the token is saved 0600 under XDG_CONFIG_HOME", async () => {
    const res = await aml(["login", "--auth-url", stack.idp.issuer, "--client-id", ADMIN_CLI.clientId, "--client-secret", ADMIN_CLI.clientSecret]);
    expect(res.stderr).toBe("");
    expect(res.code).toBe(0);
    expect(res.stdout).toContain(`logged in as ${ADMIN_CLI.clientId}`);
    expect(res.stdout).toContain(tokenPath());
    expect(res.stdout).not.toContain(ADMIN_CLI.clientSecret);
    const saved = JSON.parse(readFileSync(tokenPath(), "utf8")) as { accessToken: string; authUrl: string; clientId: string };
    expect(saved).toMatchObject({ authUrl: stack.idp.issuer, clientId: ADMIN_CLI.clientId });
    expect(JSON.stringify(saved)).not.toContain(ADMIN_CLI.clientSecret);
    expect(statSync(tokenPath()).mode & 0o777).toBe(0o600);
    // The saved token is a real admin token for this appliance.
    expect((await call(stack.server.url, "GET", "/v1/tenants", { credential: { bearer: saved.accessToken } })).status).toBe(200);
  });

  test("tenant create: onboards over HTTP and prints the API key and webhook secret exactly once", async () => {
    const res = await remote([
      "tenant",
      "create",
      "--name",
      "Remote Bank",
      "--slug",
      slug,
      "--contact-email",
      "kyc@remote-bank.example",
      "--plan",
      "enterprise",
      "--lists",
      "ofac,eu",
      "--webhook-url",
      "https://hooks.remote-bank.example/aml",
    ]);
    expect(res.stderr).toBe("");
    expect(res.code).toBe(0);
    const apiKey = res.stdout.match(/aml_live_[0-9A-Za-z]{40}/)?.[0] ?? "";
    const secret = res.stdout.match(/whsec_[A-Za-z0-9_+/=-]+/)?.[0] ?? "";
    expect(apiKey).not.toBe("");
    expect(secret).not.toBe("");
    expect(occurrences(res.stdout, apiKey)).toBe(1);
    expect(occurrences(res.stdout, secret)).toBe(1);
    expect(res.stdout).toContain(slug);
    expect(res.stdout).toMatch(/shown once/);
    // The key works against the appliance, and the tenant is really there.
    expect((await call(stack.server.url, "GET", "/v1/usage", { credential: { apiKey } })).status).toBe(200);
    const audit = await call<{ items: Array<{ action: string; actor: { type: string; id: string } }> }>(stack.server.url, "GET", "/v1/audit", {
      credential: { apiKey },
    });
    expect(audit.body.items.find((e) => e.action === "tenant.create")?.actor).toEqual({ type: "oidc", id: ADMIN_CLI.clientId });
  });

  test("tenant list and tenant show (by slug) read the admin API", async () => {
    const list = await remote(["tenant", "list"]);
    expect(list.code).toBe(0);
    expect(list.stdout).toContain(slug);
    expect(list.stdout).toContain(stack.seed.slug);
    expect(list.stdout).not.toMatch(/aml_live_|whsec_/);

    const json = await remote(["--json", "tenant", "list"]);
    expect(json.code).toBe(0);
    const tenants = JSON.parse(json.stdout) as Tenant[];
    expect(tenants.map((t) => t.slug)).toEqual(expect.arrayContaining([slug, stack.seed.slug]));

    const show = await remote(["--json", "tenant", "show", slug]);
    expect(show.code).toBe(0);
    expect(JSON.parse(show.stdout)).toMatchObject({ slug, enabledLists: ["OFAC", "EU"], webhookUrl: "https://hooks.remote-bank.example/aml" });
    // The admin API reports no usage: the table says so rather than show none, and --json leaves it out.
    expect(JSON.parse(show.stdout)).not.toHaveProperty("usageThisMonth");
    const table = await remote(["tenant", "show", slug]);
    expect(table.code).toBe(0);
    expect(table.stdout).toMatch(/\nusage\s+\(not reported by the admin API: run aml tenant show on the appliance's host\)\n/);
  });

  test("key issue prints a working key once; key list never shows it; key revoke stops it", async () => {
    const issued = await remote(["key", "issue", slug, "--label", "ci", "--role", "auditor"]);
    expect(issued.stderr).toBe("");
    expect(issued.code).toBe(0);
    const apiKey = issued.stdout.match(/aml_live_[0-9A-Za-z]{40}/)?.[0] ?? "";
    expect(occurrences(issued.stdout, apiKey)).toBe(1);
    expect(issued.stdout).toContain("auditor");
    expect((await call(stack.server.url, "GET", "/v1/usage", { credential: { apiKey } })).status).toBe(200);

    const listed = await remote(["--json", "key", "list", slug]);
    expect(listed.code).toBe(0);
    const keys = JSON.parse(listed.stdout) as Array<{ keyId: string; label: string | null; role: string }>;
    expect(listed.stdout).not.toContain(apiKey);
    const keyId = keys.find((k) => k.label === "ci")?.keyId ?? "";
    expect(keyId).not.toBe("");

    const revoked = await remote(["key", "revoke", slug, keyId]);
    expect(revoked.code).toBe(0);
    expect(revoked.stdout).toContain(keyId);
    expect((await call(stack.server.url, "GET", "/v1/usage", { credential: { apiKey } })).status).toBe(401);
  });

  test("quota set: the limit shows in the tenant's /v1/usage", async () => {
    const res = await remote(["quota", "set", slug, "1200"]);
    expect(res.stderr).toBe("");
    expect(res.code).toBe(0);
    expect(res.stdout).toMatch(/quota\s+1200/);
    const { items } = (await call<{ items: Tenant[] }>(stack.server.url, "GET", "/v1/tenants", { credential: { bearer: await stack.token() } })).body;
    const tenant = items.find((t) => t.slug === slug);
    expect(tenant?.monthlyScreeningQuota).toBe(1200);
    const key = (
      await call<{ apiKey: string }>(stack.server.url, "POST", `/v1/tenants/${tenant?.id}/api-keys`, { credential: { bearer: await stack.token() } })
    ).body.apiKey;
    const usage = await call<{ limit: number | null }>(stack.server.url, "GET", "/v1/usage", { credential: { apiKey: key } });
    expect(usage.body.limit).toBe(1200);

    const cleared = await remote(["quota", "set", slug, "unlimited"]);
    expect(cleared.code).toBe(0);
    expect(cleared.stdout).toMatch(/quota\s+unlimited/);
  });

  test("tenant suspend and resume: the tenant's key gets 403, then works again; suspending twice → 409, exit 2", async () => {
    const bearer = { bearer: await stack.token() };
    const { items } = (await call<{ items: Tenant[] }>(stack.server.url, "GET", "/v1/tenants", { credential: bearer })).body;
    const tenant = items.find((t) => t.slug === slug);
    const key = (await call<{ apiKey: string }>(stack.server.url, "POST", `/v1/tenants/${tenant?.id}/api-keys`, { credential: bearer })).body.apiKey;

    const suspended = await remote(["tenant", "suspend", slug, "--reason", "remote check"]);
    expect(suspended.stderr).toBe("");
    expect(suspended.code).toBe(0);
    expect(suspended.stdout).toMatch(/status\s+suspended/);
    expect((await call(stack.server.url, "GET", "/v1/usage", { credential: { apiKey: key } })).status).toBe(403);
    const twice = await remote(["tenant", "suspend", slug, "--reason", "again"]);
    expect(twice.code).toBe(2);
    expect(twice.stderr).toMatch(/^error: .*already suspended.*\(HTTP 409\)/);

    const resumed = await remote(["tenant", "resume", slug, "--reason", "remote check done"]);
    expect(resumed.code).toBe(0);
    expect(resumed.stdout).toMatch(/status\s+active/);
    expect((await call(stack.server.url, "GET", "/v1/usage", { credential: { apiKey: key } })).status).toBe(200);
  });

  test("a validation error from the server: one line per issue, exit 2", async () => {
    const res = await remote(["tenant", "create", "--name", "X", "--slug", "bad slug", "--contact-email", "nope", "--plan", "p", "--lists", "OFAC"]);
    expect(res.code).toBe(2);
    expect(res.stdout).toBe("");
    expect(res.stderr).toMatch(/^error: .*\(HTTP 400\)\n/);
    expect(res.stderr).toContain("- slug:");
    expect(res.stderr).toContain("- contactEmail:");
    expect(res.stderr).not.toMatch(/\n\s+at /);
  });

  test("a token without the admin role: 403 as a one-line error, exit 2", async () => {
    const token = await stack.token("analyst-cli");
    const res = await remote(["tenant", "list"], { AML_TOKEN: token });
    expect(res.code).toBe(2);
    expect(res.stderr.trim().split("\n")).toHaveLength(1);
    expect(res.stderr).toMatch(/^error: .*HTTP 403/);
  });
});

describe("login failures", () => {
  test("a wrong client secret: one-line error, non-zero exit, no token saved", async () => {
    const otherHome = join(home, "xdg-wrong-secret");
    const res = await runCli(
      ["login", "--auth-url", stack.idp.issuer, "--client-id", ADMIN_CLI.clientId, "--client-secret", "definitely-wrong"],
      { dataDir, env: { XDG_CONFIG_HOME: otherHome } },
    );
    expect(res.code).not.toBe(0);
    expect(res.stdout).toBe("");
    const lines = res.stderr.trim().split("\n");
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^error: The identity provider refused the client credentials/);
    expect(res.stderr).not.toContain("definitely-wrong");
    expect(existsSync(join(otherHome, "aml", "token.json"))).toBe(false);
  });

  test("an unreachable identity provider: one line naming the URL and the cause, exit 1", async () => {
    const res = await runCli(["login", "--auth-url", "http://127.0.0.1:9/realms/none", "--client-id", "x", "--client-secret", "y"], {
      dataDir,
      env: { XDG_CONFIG_HOME: join(home, "xdg-unreachable") },
    });
    expect(res.code).toBe(1);
    expect(res.stderr.trim().split("\n")).toHaveLength(1);
    expect(res.stderr).toStartWith("error: Cannot reach the identity provider at http://127.0.0.1:9/realms/none/.well-known/openid-configuration: connection refused");
  });

  test.each([["127.0.0.1:8080"], ["localhost:8080"], ["http://[bad"], ["ftp://aml.example"]])(
    "--remote %p, not an http(s) URL, is a mistake in the command: exit 2, before any call",
    async (value) => {
      const res = await runCli(["--remote", value, "--token", "any", "tenant", "list"], { dataDir, env: { XDG_CONFIG_HOME: join(home, "xdg-bad-url") } });
      expect(res.code).toBe(2);
      expect(res.stderr).toBe(`error: --remote must be the appliance's http or https URL, e.g. https://aml.bank.example or http://127.0.0.1:8080 (got ${JSON.stringify(value)})\n`);
    },
  );

  test("a --remote that is not the appliance (here the identity provider) is named, exit 2 for its 4xx", async () => {
    const wrong = `${stack.idp.issuer}/some/prefix`;
    const res = await runCli(["--remote", wrong, "--token", "any", "tenant", "list"], { dataDir, env: { XDG_CONFIG_HOME: join(home, "xdg-wrong-remote") } });
    expect(res.code).toBe(2);
    expect(res.stderr).toMatch(new RegExp(`^error: ${wrong.replaceAll(/[.*+?^${}()|[\]\\/]/g, "\\$&")} answered HTTP 4\\d\\d without the appliance's problem\\+json: is it the appliance's address, with no path after it\\?\\n$`));
  });

  test("a --remote that answers 200 with a web page is named too, exit 2, not a TypeError", async () => {
    const page = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response("<html>login portal</html>", { headers: { "content-type": "text/html" } }) });
    try {
      const url = `http://127.0.0.1:${page.port}`;
      const res = await runCli(["--remote", url, "--token", "any", "tenant", "list"], { dataDir, env: { XDG_CONFIG_HOME: join(home, "xdg-web-page") } });
      expect(res.code).toBe(2);
      expect(res.stderr).toBe(`error: ${url} answered HTTP 200 with no JSON object: is it the appliance's address, with no path after it?\n`);
    } finally {
      page.stop(true);
    }
  });

  test("an unreachable appliance: one line naming the URL and the cause, exit 1", async () => {
    const res = await runCli(["--remote", "http://127.0.0.1:9", "--token", "any", "tenant", "list"], { dataDir, env: { XDG_CONFIG_HOME: join(home, "xdg-unreachable") } });
    expect(res.code).toBe(1);
    expect(res.stderr.trim().split("\n")).toHaveLength(1);
    expect(res.stderr).toStartWith("error: Cannot reach the appliance at http://127.0.0.1:9/v1/tenants: connection refused");
  });
});

describe("the saved token", () => {
  function saveExpired(xdg: string): string {
    const path = join(xdg, "aml", "token.json");
    mkdirSync(join(xdg, "aml"), { recursive: true });
    const stale = { accessToken: "expired.jwt.token", expiresAt: new Date(Date.now() - 60_000).toISOString(), authUrl: stack.idp.issuer, clientId: ADMIN_CLI.clientId };
    writeFileSync(path, JSON.stringify(stale), { mode: 0o600 });
    return path;
  }

  test("expired: renewed by client_credentials when AML_CLIENT_SECRET is set, and saved again", async () => {
    const xdg = join(home, "xdg-renew");
    const path = saveExpired(xdg);
    const res = await runCli(["--remote", stack.server.url, "--json", "tenant", "list"], {
      dataDir,
      env: { XDG_CONFIG_HOME: xdg, AML_CLIENT_SECRET: ADMIN_CLI.clientSecret },
    });
    expect(res.stderr).toBe("");
    expect(res.code).toBe(0);
    expect((JSON.parse(res.stdout) as Tenant[]).map((t) => t.slug)).toContain(stack.seed.slug);
    const renewed = JSON.parse(readFileSync(path, "utf8")) as { accessToken: string; expiresAt: string };
    expect(renewed.accessToken).not.toBe("expired.jwt.token");
    expect(new Date(renewed.expiresAt).getTime()).toBeGreaterThan(Date.now());
  });

  test("expired and no secret to renew it: a one-line hint to log in again", async () => {
    const xdg = join(home, "xdg-expired");
    saveExpired(xdg);
    const res = await runCli(["--remote", stack.server.url, "tenant", "list"], { dataDir, env: { XDG_CONFIG_HOME: xdg } });
    expect(res.code).toBe(2);
    expect(res.stderr).toBe("error: The saved token has expired: run `aml login` again.\n");
  });

  test("the scope `aml login --scope` asked for is kept and asked again on renewal (Entra needs its own)", async () => {
    const xdg = join(home, "xdg-scope");
    const login = await runCli(["login", "--auth-url", stack.idp.issuer, "--client-id", ADMIN_CLI.clientId, "--scope", "aml-api"], {
      dataDir,
      env: { XDG_CONFIG_HOME: xdg, AML_CLIENT_SECRET: ADMIN_CLI.clientSecret },
    });
    expect(login.code).toBe(0);
    const path = join(xdg, "aml", "token.json");
    const saved = JSON.parse(readFileSync(path, "utf8")) as { accessToken: string; expiresAt: string; scope: string };
    expect(saved.scope).toBe("aml-api");
    expect(jwtPayload(saved.accessToken).scope).toBe("aml-api");
    writeFileSync(path, JSON.stringify({ ...saved, expiresAt: new Date(Date.now() - 60_000).toISOString() }), { mode: 0o600 });
    const res = await runCli(["--remote", stack.server.url, "--json", "tenant", "list"], { dataDir, env: { XDG_CONFIG_HOME: xdg, AML_CLIENT_SECRET: ADMIN_CLI.clientSecret } });
    expect(res.code).toBe(0);
    const renewed = JSON.parse(readFileSync(path, "utf8")) as { accessToken: string; scope: string };
    expect(renewed.accessToken).not.toBe(saved.accessToken);
    expect(renewed.scope).toBe("aml-api");
    expect(jwtPayload(renewed.accessToken).scope).toBe("aml-api");
  });

  test("the saved scope is asked again only of the same provider and client: another client gets the default", async () => {
    const xdg = join(home, "xdg-scope-other");
    const path = join(xdg, "aml", "token.json");
    mkdirSync(join(xdg, "aml"), { recursive: true });
    const expired = { accessToken: "x.y.z", expiresAt: new Date(Date.now() - 60_000).toISOString(), authUrl: stack.idp.issuer, clientId: ADMIN_CLI.clientId, scope: "aml-api" };
    writeFileSync(path, JSON.stringify(expired), { mode: 0o600 });
    await runCli(["--remote", stack.server.url, "tenant", "list"], {
      dataDir,
      env: { XDG_CONFIG_HOME: xdg, AML_CLIENT_ID: "analyst-cli", AML_CLIENT_SECRET: "analyst-cli-secret" },
    });
    const renewed = JSON.parse(readFileSync(path, "utf8")) as { accessToken: string; clientId: string; scope: string };
    expect(renewed).toMatchObject({ clientId: "analyst-cli", scope: "aml-api roles" });
    expect(jwtPayload(renewed.accessToken).scope).toBe("aml-api roles");
  });

  test("a saved token the appliance refuses before it expires: renewed once with AML_CLIENT_SECRET; without it, told to log in again", async () => {
    const xdg = join(home, "xdg-refused");
    const path = join(xdg, "aml", "token.json");
    mkdirSync(join(xdg, "aml"), { recursive: true });
    // Not expired on this side, refused on the other (the IdP's keys changed, or the token was revoked).
    const refused = { accessToken: "refused.jwt.token", expiresAt: new Date(Date.now() + 3_600_000).toISOString(), authUrl: stack.idp.issuer, clientId: ADMIN_CLI.clientId };
    writeFileSync(path, JSON.stringify(refused), { mode: 0o600 });
    const hint = await runCli(["--remote", stack.server.url, "tenant", "list"], { dataDir, env: { XDG_CONFIG_HOME: xdg } });
    expect(hint.code).toBe(2);
    expect(hint.stderr.trim().split("\n")).toHaveLength(1);
    expect(hint.stderr).toContain("The appliance refused the token saved by `aml login` (HTTP 401): run `aml login` again.");

    const renewed = await runCli(["--remote", stack.server.url, "--json", "tenant", "list"], { dataDir, env: { XDG_CONFIG_HOME: xdg, AML_CLIENT_SECRET: ADMIN_CLI.clientSecret } });
    expect(renewed.stderr).toBe("");
    expect(renewed.code).toBe(0);
    expect((JSON.parse(renewed.stdout) as Tenant[]).map((t) => t.slug)).toContain(stack.seed.slug);
    expect((JSON.parse(readFileSync(path, "utf8")) as { accessToken: string }).accessToken).not.toBe("refused.jwt.token");
  });

  test("saving makes the folder 0700 and replaces a symlink at token.json rather than writing through it", () => {
    const xdg = join(home, "xdg-store");
    const folder = join(xdg, "aml");
    mkdirSync(folder, { recursive: true, mode: 0o755 });
    chmodSync(folder, 0o755);
    const elsewhere = join(home, "elsewhere.json");
    writeFileSync(elsewhere, "untouched");
    symlinkSync(elsewhere, join(folder, "token.json"));
    const token = { accessToken: "a.b.c", expiresAt: new Date().toISOString(), authUrl: "http://idp", clientId: "c", scope: "aml-api roles" };
    saveToken(token, join(folder, "token.json"));
    expect(statSync(folder).mode & 0o777).toBe(0o700);
    expect(lstatSync(join(folder, "token.json")).isSymbolicLink()).toBe(false);
    expect(statSync(join(folder, "token.json")).mode & 0o777).toBe(0o600);
    expect(readFileSync(elsewhere, "utf8")).toBe("untouched");
    expect(loadToken(join(folder, "token.json"))).toEqual(token);
    expect(readdirSync(folder)).toEqual(["token.json"]);
  });

  test("location follows XDG: an empty or relative XDG_CONFIG_HOME falls back to ~/.config, never the working directory", () => {
    expect(tokenFile({ XDG_CONFIG_HOME: "/x/conf", HOME: "/home/op" })).toBe("/x/conf/aml/token.json");
    expect(tokenFile({ HOME: "/home/op" })).toBe("/home/op/.config/aml/token.json");
    expect(tokenFile({ XDG_CONFIG_HOME: "", HOME: "/home/op" })).toBe("/home/op/.config/aml/token.json");
    expect(tokenFile({ XDG_CONFIG_HOME: "relative/conf", HOME: "/home/op" })).toBe("/home/op/.config/aml/token.json");
  });
});
