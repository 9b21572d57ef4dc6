import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { runCli } from "../helpers/cli";
import { type CliFolder, cliFolder, expectCleanFailure } from "../helpers/cli-folder";
import { SCREENING_FIXTURES } from "../helpers/lists";
import { makeTenant } from "../helpers/tenants";

/** Operator mistakes: a non-zero exit (2 = bad input), one clear "error:" line, no stack trace, nothing written. */
let folder: CliFolder;
beforeAll(() => {
  folder = cliFolder();
});
afterAll(() => {
  folder.close();
});

const tenantsNamed = (name: string) =>
  folder.ctx.db.sqlite.query<{ n: number }, [string]>("SELECT count(*) AS n FROM tenants WHERE name = ?").get(name)?.n;

describe("tenant create", () => {
  test.concurrent.each([
    ["a bad slug", ["--slug", "Not A Slug!"], /slug must be 1-63 lowercase letters/],
    ["a bad e-mail", ["--contact-email", "not-an-email"], /contactEmail must be an e-mail address/],
    ["an unknown list", ["--lists", "OFAC,INTERPOL"], /enabledLists\[1\] must be one of OFAC, EU, UK, UN, WIKIDATA/],
    ["a non-numeric quota", ["--quota", "lots"], /quota must be a whole number or "unlimited", got "lots"/],
    ["a negative quota", ["--quota", "-5"], /quota must be a whole number or "unlimited", got "-5"/],
    ["a private webhook URL", ["--webhook-url", "http://localhost./hook"], /webhookUrl host localhost is on a private/],
    ["a webhook URL with credentials", ["--webhook-url", "https://u:p@hooks.example.com/"], /credentials in the URL/],
  ])("with %s", async (label, override, message) => {
    const name = `Bad input: ${label}`;
    const flags: Record<string, string> = {
      "--name": name,
      "--slug": `bad-${label.replaceAll(/[^a-z]/g, "")}`,
      "--contact-email": "kyc@bank.example",
      "--plan": "enterprise",
      "--lists": "OFAC",
    };
    flags[override[0] ?? ""] = override[1] ?? "";
    expectCleanFailure(await folder.aml(["tenant", "create", ...Object.entries(flags).flat()]), 2, message);
    expect(tenantsNamed(name)).toBe(0);
  });

  test("a duplicate slug", async () => {
    const { tenant } = makeTenant(folder.ctx);
    const args = ["--name", "Copycat", "--slug", tenant.slug, "--contact-email", "a@b.example", "--plan", "p", "--lists", "UN"];
    expectCleanFailure(await folder.aml(["tenant", "create", ...args]), 2, `A tenant with slug "${tenant.slug}" already exists`);
    expect(tenantsNamed("Copycat")).toBe(0);
  });
});

describe("unknown tenant", () => {
  test.concurrent.each([
    ["quota set", ["quota", "set", "no-such-tenant", "5"]],
    ["key issue", ["key", "issue", "no-such-tenant"]],
    ["audit verify", ["audit", "verify", "no-such-tenant"]],
  ])("on %s", async (_name, args) => {
    expectCleanFailure(await folder.aml(args), 2, "Tenant no-such-tenant not found");
  });
});

describe("a missing input file", () => {
  test("lists import exits 2 and creates no data folder on the way", async () => {
    const dataDir = join(folder.dataDir, "new-appliance");
    const missing = join(folder.dataDir, "no-such-dir", "sdn.csv");
    expectCleanFailure(await runCli(["lists", "import", join(SCREENING_FIXTURES, "sdn.csv"), missing], { dataDir }), 2, `error: no such file: ${missing}`);
    expect(existsSync(dataDir)).toBe(false);
  });

  test("screen exits 2", async () => {
    expectCleanFailure(await folder.aml(["screen", "nofile.csv"]), 2, /^error: no such file: nofile\.csv$/);
  });
});

describe("quota and key values", () => {
  test.concurrent.each([
    ["a word", "many", /quota must be a whole number or "unlimited", got "many"/],
    ["more than a billion", "1000000001", /monthlyScreeningQuota must be at most 1,000,000,000/],
  ])("quota set with %s leaves the quota unchanged", async (_name, value, message) => {
    const { tenant } = makeTenant(folder.ctx, { monthlyScreeningQuota: 7 });
    expectCleanFailure(await folder.aml(["quota", "set", tenant.slug, value]), 2, message);
    const quota = folder.ctx.db.sqlite
      .query<{ q: number | null }, [string]>("SELECT monthly_quota AS q FROM tenants WHERE id = ?")
      .get(tenant.id)?.q;
    expect(quota).toBe(7);
  });

  test("key issue with a role API keys may not carry", async () => {
    const { tenant } = makeTenant(folder.ctx);
    expectCleanFailure(await folder.aml(["key", "issue", tenant.slug, "--role", "admin"]), 2, /role must be one of compliance_analyst, auditor/);
    const keys = folder.ctx.db.sqlite.query<{ n: number }, [string]>("SELECT count(*) AS n FROM api_keys WHERE tenant_id = ?").get(tenant.id)?.n;
    expect(keys).toBe(1);
  });
});
