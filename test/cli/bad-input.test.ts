import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { type CliResult, runCli } from "../helpers/cli";
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
    ["a non-numeric quota", ["--quota", "lots"], /quota must be a whole number from 0 to 1,000,000,000, or "unlimited" \(got "lots"\)$/],
    ["a negative quota", ["--quota", "-5"], /quota must be a whole number from 0 to 1,000,000,000, or "unlimited" \(got "-5"\)$/],
    ["a private webhook URL", ["--webhook-url", "http://localhost./hook"], /webhookUrl is refused: host localhost is on a private/],
    ["a webhook URL with credentials", ["--webhook-url", "https://u:p@hooks.example.com/"], /credentials in the URL/],
    ["a webhook URL with a space", ["--webhook-url", "https://hooks.example.com/a b"], /webhookUrl must not contain control characters, invisible characters or spaces/],
    ["a quota beyond a safe integer", ["--quota", "99999999999999999999"], /monthlyScreeningQuota must be at most 1,000,000,000$/],
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
    expectCleanFailure(await runCli(["lists", "import", join(SCREENING_FIXTURES, "sdn.csv"), missing], { dataDir }), 2, `error: no such file or folder: ${missing}`);
    expect(existsSync(dataDir)).toBe(false);
  });

  test("lists import of a folder with no file to read exits 2 and creates no data folder", async () => {
    const dataDir = join(folder.dataDir, "new-appliance");
    const empty = join(folder.dataDir, "carried-in");
    mkdirSync(join(empty, "ofac"), { recursive: true });
    writeFileSync(join(empty, ".DS_Store"), "x");
    expectCleanFailure(await runCli(["lists", "import", empty], { dataDir }), 2, `error: no files in folder ${empty}: an import reads the folder's files (hidden files and subfolders are skipped)`);
    expect(existsSync(dataDir)).toBe(false);
  });

  test("lists import of standard input, a device or a folder with a broken link exits 2 and creates no data folder", async () => {
    const dataDir = join(folder.dataDir, "new-appliance");
    expectCleanFailure(await runCli(["lists", "import", "-"], { dataDir }), 2, "error: no such file or folder: - (lists import reads files and folders, not standard input)");
    expectCleanFailure(await runCli(["lists", "import", "/dev/null"], { dataDir }), 2, "error: not a file or folder: /dev/null");
    const linked = join(folder.dataDir, "linked");
    mkdirSync(linked, { recursive: true });
    symlinkSync(join(linked, "gone.xml"), join(linked, "un.xml"));
    expectCleanFailure(await runCli(["lists", "import", linked], { dataDir }), 2, `error: cannot read ${join(linked, "un.xml")} in folder ${linked} (a broken link, or removed)`);
    expect(existsSync(dataDir)).toBe(false);
  });

  test("screen exits 2", async () => {
    expectCleanFailure(await folder.aml(["screen", "nofile.csv"]), 2, /^error: no such file: nofile\.csv$/);
  });
});

describe("quota and key values", () => {
  test.concurrent.each([
    ["a word", "many", /quota must be a whole number from 0 to 1,000,000,000, or "unlimited" \(got "many"\)$/],
    ["a negative number", "-5", /quota must be a whole number from 0 to 1,000,000,000, or "unlimited" \(got "-5"\)$/],
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

describe("values typed on the command line are named as typed", () => {
  const profileOf = (tenantId: string) =>
    folder.ctx.db.sqlite.query<{ n: number }, [string]>("SELECT count(*) AS n FROM risk_profiles WHERE tenant_id = ?").get(tenantId)?.n;

  test.concurrent.each([
    ["a number", "threshold=abc", /^error: Invalid option: threshold must be a number \(got "abc"\)$/],
    ["true or false", "exactMatch=maybe", /exactMatch must be true or false \(got "maybe"\)$/],
  ])("profile set with a value that is not %s", async (_what, pair, message) => {
    const { tenant } = makeTenant(folder.ctx);
    const result = await folder.aml(["profile", "set", tenant.slug, "--set", pair]);
    expectCleanFailure(result, 2, message);
    // One line: the issue is in it, and is not listed again below it.
    expect(result.stderr.trimEnd().split("\n")).toHaveLength(1);
    expect(profileOf(tenant.id)).toBe(0);
  });

  test("screen --threshold that is not a number", async () => {
    expectCleanFailure(await folder.aml(["screen", "--name", "Ada Example", "--threshold", "high"]), 2, /threshold must be a number \(got "high"\)$/);
  });

  // A subject typed as options is the command's own mistake (2), not a row of a file found invalid (1).
  test.concurrent.each([
    [["--dob", "1990-13-01"], /^error: The subject is invalid: --dob must be "YYYY", "YYYY-MM" or "YYYY-MM-DD"/],
    [["--nationality", "ZZ"], /^error: The subject is invalid: --nationality must be an ISO 3166-1 alpha-2 or alpha-3 code/],
  ])("screen --name with %p", async (flags, message) => {
    expectCleanFailure(await folder.aml(["screen", "--name", "Ada Example", ...flags]), 2, message);
  });
});

/** Commander's own usage errors: exit 2, the error first on stderr (the command's help after it), nothing on stdout. */
function expectUsageError(result: CliResult, message: RegExp): void {
  expect(result.code).toBe(2);
  expect(result.stdout).toBe("");
  expect(result.stderr.split("\n")[0]).toMatch(message);
  expect(result.stderr).toContain("Usage: aml");
}

describe("a mistake in the command exits 2, whoever finds it", () => {
  test.concurrent.each([
    ["a missing required option", ["tenant", "create", "--name", "Half Made", "--slug", "half-made"], /^error: required option '--contact-email <email>' not specified$/],
    ["an unknown option", ["tenant", "list", "--colour", "red"], /^error: unknown option '--colour'$/],
    ["neither of two alternatives", ["profile", "set", "any-tenant"], /^error: Give either --json-file or one or more --set key=value\.$/],
    ["a missing argument", ["tenant", "show"], /^error: missing required argument 'tenant'$/],
    ["too many arguments", ["tenant", "list", "extra"], /^error: too many arguments for 'list'/],
    ["an option without its value", ["key", "issue", "some-bank", "--role"], /^error: option '--role <role>' argument missing$/],
    ["an unknown command", ["tenant", "destroy"], /^error: unknown command 'destroy'$/],
    ["an unknown top-level command", ["tenants"], /^error: unknown command 'tenants'/],
  ])("commander's own error: %s", async (_what, args, message) => {
    expectUsageError(await folder.aml(args), message);
  });

  test("no command at all prints the help on stderr and exits 2", async () => {
    const result = await folder.aml([]);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe("");
    expect(result.stderr).toStartWith("Usage: aml [options] [command]");
  });

  test("nothing is created by a tenant create missing a required option", async () => {
    await folder.aml(["tenant", "create", "--name", "Never Made", "--slug", "never-made", "--contact-email", "a@b.example"]);
    expect(tenantsNamed("Never Made")).toBe(0);
  });

  test.concurrent.each(["--help", "--version", "tenant --help", "help quota"])("aml %s still exits 0", async (line) => {
    const result = await folder.aml(line.split(" "));
    expect(result.code).toBe(0);
    expect(result.stdout).not.toBe("");
  });

  test("login without a client secret names what is missing", async () => {
    const args = ["login", "--auth-url", "http://127.0.0.1:18499/realms/aml", "--client-id", "aml-admin-cli"];
    expectCleanFailure(await folder.aml(args), 2, /^error: login needs --client-secret \(or AML_CLIENT_SECRET\)$/);
  });

  test("--remote with no token, no AML_TOKEN and no saved login", async () => {
    const configHome = join(folder.dataDir, "no-login");
    const result = await runCli(["--remote", "http://127.0.0.1:18499", "tenant", "list"], { dataDir: folder.dataDir, env: { XDG_CONFIG_HOME: configHome } });
    expectCleanFailure(result, 2, "error: No token: run `aml login` first, or pass --token (or AML_TOKEN).");
  });

  test("backup into a folder that is not empty, or onto a file: nothing is written", async () => {
    const used = join(folder.dataDir, "used-backup");
    mkdirSync(used);
    writeFileSync(join(used, "notes.txt"), "keep me");
    expectCleanFailure(await folder.aml(["backup", used]), 2, `error: Backup folder ${used} is not empty; choose a new folder`);
    expect(readdirSync(used)).toEqual(["notes.txt"]);
    const file = join(used, "notes.txt");
    expectCleanFailure(await folder.aml(["backup", file]), 2, `error: ${file} is a file, not a folder; give a new folder for the backup`);
    // A link to nowhere, and an empty name (a script's unset variable, which would mean the working folder).
    const dangling = join(folder.dataDir, "dangling-backup");
    symlinkSync(join(folder.dataDir, "no-such-target"), dangling);
    expectCleanFailure(await folder.aml(["backup", dangling]), 2, `error: ${dangling} is a symbolic link to nothing; give a new folder for the backup`);
    expectCleanFailure(await folder.aml(["backup", ""]), 2, "error: the backup folder is empty; give a new folder for the backup");
  });

  test.concurrent.each([
    ["a config file that does not exist", ["--config", "/no/such/aml.json", "tenant", "list"], /^error: Config file not found: \/no\/such\/aml\.json$/],
    ["a port that is not a number", ["serve", "--port", "eighty"], /^error: Invalid configuration:$/],
  ])("an invalid setting: %s", async (_what, args, message) => {
    const result = await runCli(args, { dataDir: folder.dataDir, timeoutMs: 60_000 });
    expect(result.code).toBe(2);
    expect(result.stdout).toBe("");
    expect(result.stderr.split("\n")[0]).toMatch(message);
  });
});
