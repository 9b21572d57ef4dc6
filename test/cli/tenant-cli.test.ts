import { Database } from "bun:sqlite";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { resolveApiKey } from "@/auth/resolve-api-key";
import { MASTER_KEY_FILE } from "@/lib/secret-box";
import { DB_FILE, writeTx } from "@/storage/db";
import type { ApiKeyInfo } from "@/tenants/keys";
import type { Tenant } from "@/tenants/schemas";
import { chargeScreens, getUsage } from "@/usage/quota";
import { API_KEY_RE, type CliFolder, type CreatedJson, cliFolder, expectCleanFailure, SECRET_RE } from "../helpers/cli-folder";
import { makeTenant } from "../helpers/tenants";

/** `aml tenant|key|quota` as an operator runs them: a separate process on the data folder. */
let folder: CliFolder;
beforeAll(() => {
  folder = cliFolder();
});
afterAll(() => {
  folder.close();
});

let counter = 0;
function createArgs(extra: string[] = []): string[] {
  counter++;
  return [
    "tenant",
    "create",
    ...["--name", `Bank ${counter}`, "--slug", `cli-bank-${counter}`, "--contact-email", `kyc${counter}@bank.example`],
    ...["--plan", "enterprise", "--lists", "ofac,EU, un", ...extra],
  ];
}

const tenantRow = (slug: string) =>
  folder.ctx.db.sqlite
    .query<{ id: string; monthly_quota: number | null; webhook_secret_enc: string | null }, [string]>(
      "SELECT id, monthly_quota, webhook_secret_enc FROM tenants WHERE slug = ?",
    )
    .get(slug);

describe("tenant create shows the secrets exactly once", () => {
  test("table mode prints the API key and the whsec_ secret once, and they are the live ones", async () => {
    const result = await folder.aml(createArgs(["--webhook-url", "https://hooks.bank.example/aml", "--quota", "500"]));
    expect(result.code).toBe(0);
    const keys = result.stdout.match(API_KEY_RE) ?? [];
    const secrets = result.stdout.match(SECRET_RE) ?? [];
    expect(keys.length).toBe(1);
    expect(secrets.length).toBe(1);
    expect(result.stdout).toMatch(/enabledLists\s+OFAC,EU,UN/);
    expect(result.stdout).toMatch(/monthlyScreeningQuota\s+500/);

    const row = tenantRow(`cli-bank-${counter}`);
    const principal = resolveApiKey(folder.ctx.db, keys[0] ?? "");
    expect(principal?.tenantId).toBe(row?.id ?? "missing");
    expect(principal?.roles).toEqual(["compliance_analyst"]);
    // The signing secret is sealed under master.key (0600) and opens to exactly what was printed.
    expect(statSync(join(folder.dataDir, MASTER_KEY_FILE)).mode & 0o777).toBe(0o600);
    expect(folder.ctx.secrets.open(row?.webhook_secret_enc ?? "")).toBe(secrets[0] ?? "none");
  });

  test("--json prints the tenant with apiKey, apiKeyId and webhookSigningSecret", async () => {
    const result = await folder.aml(["--json", ...createArgs(["--webhook-url", "https://hooks.bank.example/x"])]);
    expect(result.code).toBe(0);
    const created = JSON.parse(result.stdout) as CreatedJson;
    expect(created).toMatchObject({ slug: `cli-bank-${counter}`, monthlyScreeningQuota: null, enabledLists: ["OFAC", "EU", "UN"] });
    expect(created.apiKey).toMatch(/^aml_live_[0-9A-Za-z]{40}$/);
    expect(created.webhookSigningSecret).toMatch(/^whsec_[0-9A-Za-z]{40}$/);
    expect(resolveApiKey(folder.ctx.db, created.apiKey)?.actor.id).toBe(created.apiKeyId);
  });

  test("without a webhook URL a signing secret is still issued, shown once and sealed at rest", async () => {
    const result = await folder.aml(["--json", ...createArgs()]);
    const created = JSON.parse(result.stdout) as CreatedJson;
    expect(created.webhookUrl).toBeNull();
    expect(created.webhookSigningSecret).toMatch(/^whsec_[0-9A-Za-z]{40}$/);
    const sealed = tenantRow(`cli-bank-${counter}`)?.webhook_secret_enc ?? null;
    expect(sealed).not.toBeNull();
    expect(sealed).not.toContain("whsec_");
    expect(folder.ctx.secrets.open(sealed ?? "")).toBe(created.webhookSigningSecret);
  });

  test("tenant list and show never print a key or a secret, and neither aml.db nor its WAL holds them", async () => {
    const hold = new Database(join(folder.dataDir, DB_FILE));
    // An open read snapshot keeps the CLI's closing checkpoint from emptying the WAL, so the WAL is inspected too.
    hold.run("BEGIN");
    hold.query("SELECT count(*) FROM tenants").get();
    let created: CreatedJson;
    try {
      const result = await folder.aml(["--json", ...createArgs(["--webhook-url", "https://hooks.bank.example/y"])]);
      created = JSON.parse(result.stdout) as CreatedJson;
      const secret = created.webhookSigningSecret ?? "missing";
      const files = [DB_FILE, `${DB_FILE}-wal`].map((f) => join(folder.dataDir, f)).filter(existsSync);
      expect(files.length).toBe(2);
      expect(statSync(join(folder.dataDir, `${DB_FILE}-wal`)).size).toBeGreaterThan(0);
      const needles = [created.apiKey, created.apiKey.slice("aml_live_".length), secret, secret.slice("whsec_".length)];
      for (const file of files) {
        const bytes = readFileSync(file).toString("latin1");
        for (const needle of needles) expect(bytes.includes(needle)).toBe(false);
      }
    } finally {
      hold.run("COMMIT");
      hold.close();
    }
    const outputs = await Promise.all(
      [["tenant", "list"], ["--json", "tenant", "list"], ["tenant", "show", created.slug], ["--json", "tenant", "show", created.id]].map(
        (args) => folder.aml(args),
      ),
    );
    for (const out of outputs) {
      expect(out.code).toBe(0);
      expect(out.stdout).toContain(created.slug);
      expect(out.stdout).not.toMatch(API_KEY_RE);
      expect(out.stdout).not.toContain("whsec_");
    }
    expect((JSON.parse(outputs[3]?.stdout ?? "{}") as Tenant).webhookUrl).toBe("https://hooks.bank.example/y");
  });
});

describe("key issue, list and revoke", () => {
  test("issue prints the key once; list shows hints only; revoke marks it; a second revoke is refused", async () => {
    const { tenant } = makeTenant(folder.ctx);
    const issued = await folder.aml(["key", "issue", tenant.slug, "--label", "nightly batch", "--role", "auditor"]);
    expect(issued.code).toBe(0);
    const printed = issued.stdout.match(API_KEY_RE) ?? [];
    expect(printed.length).toBe(1);
    expect(issued.stdout).toMatch(/role\s+auditor/);
    expect(resolveApiKey(folder.ctx.db, printed[0] ?? "")?.roles).toEqual(["auditor"]);

    const [listed, table] = await Promise.all([folder.aml(["--json", "key", "list", tenant.slug]), folder.aml(["key", "list", tenant.id])]);
    const keys = JSON.parse(listed.stdout) as ApiKeyInfo[];
    expect(keys.map((k) => [k.label, k.role, k.revokedAt])).toEqual([
      ["initial", "compliance_analyst", null],
      ["nightly batch", "auditor", null],
    ]);
    expect(keys[1]?.hint).toBe(`${(printed[0] ?? "").slice(0, 13)}…`);
    expect(table.stdout).toContain("nightly batch");
    for (const out of [listed, table]) expect(out.stdout).not.toMatch(API_KEY_RE);

    const keyId = keys[1]?.keyId ?? "";
    const revoked = await folder.aml(["--json", "key", "revoke", tenant.slug, keyId]);
    expect(revoked.code).toBe(0);
    expect((JSON.parse(revoked.stdout) as ApiKeyInfo).revokedBy).toMatch(/^cli:/);
    expect(resolveApiKey(folder.ctx.db, printed[0] ?? "")).toBeNull();

    const [again, unknown] = await Promise.all([
      folder.aml(["key", "revoke", tenant.slug, keyId]),
      folder.aml(["key", "revoke", tenant.slug, "01a00000-0000-7000-8000-000000000000"]),
    ]);
    expectCleanFailure(again, 2, /already revoked/);
    expectCleanFailure(unknown, 2, /API key 01a00000-0000-7000-8000-000000000000 not found/);
  });

  test("issue --json carries the key for scripts", async () => {
    const { tenant } = makeTenant(folder.ctx);
    const issued = JSON.parse((await folder.aml(["--json", "key", "issue", tenant.id])).stdout) as ApiKeyInfo & { apiKey: string };
    expect(issued.apiKey).toMatch(/^aml_live_[0-9A-Za-z]{40}$/);
    expect(issued.role).toBe("compliance_analyst");
    expect(resolveApiKey(folder.ctx.db, issued.apiKey)?.tenantId).toBe(tenant.id);
  });
});

describe("tenant show reports this month's usage", () => {
  const charge = (tenantId: string, count: number) => writeTx(folder.ctx.db, () => chargeScreens(folder.ctx.db, tenantId, count, new Date()));

  test("used, limit and remaining, in the table and in --json", async () => {
    const { tenant } = makeTenant(folder.ctx, { monthlyScreeningQuota: 10 });
    charge(tenant.id, 3);
    const [table, json] = await Promise.all([folder.aml(["tenant", "show", tenant.slug]), folder.aml(["--json", "tenant", "show", tenant.id])]);
    expect(table.code).toBe(0);
    const period = new Date().toISOString().slice(0, 7);
    expect(table.stdout).toMatch(new RegExp(`usagePeriod\\s+${period} \\(UTC\\)\n`));
    expect(table.stdout).toMatch(/\nused\s+3\n/);
    expect(table.stdout).toMatch(/\nlimit\s+10\n/);
    expect(table.stdout).toMatch(/\nremaining\s+7\n/);
    expect(json.code).toBe(0);
    const shown = JSON.parse(json.stdout) as Tenant & { usageThisMonth: unknown };
    expect(shown.slug).toBe(tenant.slug);
    expect(shown.usageThisMonth).toEqual({ period, used: 3, limit: 10, remaining: 7, unlimited: false });
  });

  test("an unlimited tenant shows its use and no limit", async () => {
    const { tenant } = makeTenant(folder.ctx);
    charge(tenant.id, 2);
    const table = await folder.aml(["tenant", "show", tenant.slug]);
    expect(table.stdout).toMatch(/\nused\s+2\n/);
    expect(table.stdout).toMatch(/\nlimit\s+unlimited\n/);
    expect(table.stdout).toMatch(/\nremaining\s+unlimited\n/);
  });
});

describe("quota set", () => {
  test("a number sets the quota and `unlimited` clears it", async () => {
    const { tenant } = makeTenant(folder.ctx);
    const set = await folder.aml(["--json", "quota", "set", tenant.slug, "250"]);
    expect(set.code).toBe(0);
    expect(JSON.parse(set.stdout)).toEqual({ tenant: tenant.slug, monthlyScreeningQuota: 250, usedThisMonth: 0 });
    expect(getUsage(folder.ctx.db, tenant.id, new Date())).toMatchObject({ limit: 250, remaining: 250 });

    const cleared = await folder.aml(["quota", "set", tenant.id, "unlimited"]);
    expect(cleared.code).toBe(0);
    expect(cleared.stdout).toMatch(/quota\s+unlimited/);
    expect(cleared.stdout).toMatch(/usedThisMonth\s+0/);
    expect(tenantRow(tenant.slug)?.monthly_quota).toBeNull();
  });
});

describe("output never carries a control character from the database", () => {
  test("a tenant name edited in the database to hold ESC and a line break prints them as U+FFFD", async () => {
    const { tenant } = makeTenant(folder.ctx);
    folder.ctx.db.sqlite.run("UPDATE tenants SET name = ? WHERE id = ?", ["Bank\u001b[2J\nstatus  forged", tenant.id]);
    for (const args of [["tenant", "show", tenant.slug], ["tenant", "list"]]) {
      const result = await folder.aml(args);
      expect(result.code).toBe(0);
      expect(result.stdout).not.toContain("\u001b");
      expect(result.stdout).toContain("Bank\uFFFD[2J\uFFFDstatus  forged");
    }
  });
});
