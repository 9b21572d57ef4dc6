import { afterAll, describe, expect, test } from "bun:test";
import { existsSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Command } from "commander";
import { buildProgram } from "@/cli/program";
import { signWebhook } from "@/webhooks/sign";
import { runCli } from "../helpers/cli";
import { type CliFolder, cliFolder, expectCleanFailure } from "../helpers/cli-folder";
import { SCREENING_FIXTURES } from "../helpers/lists";
import { makeTenant } from "../helpers/tenants";

/**
 * --remote on a command without a remote mode exits 2 instead of quietly answering from the local
 * data folder; AML_REMOTE from the environment is a default for the remote-capable commands only.
 */
// At load, not in beforeAll: the table of test.each below names the folder's tenant and backup target.
const folder: CliFolder = cliFolder("aml-remote-local-");
const slug = makeTenant(folder.ctx).tenant.slug;
const backupTarget = join(folder.dataDir, "..", `${slug}-backup`);
afterAll(() => {
  folder.close();
  rmSync(backupTarget, { recursive: true, force: true });
});

// Nothing listens on port 9 (discard): a command that did go remote fails to connect.
const NOWHERE = "http://127.0.0.1:9";

/** Every command with a remote mode, plus login and webhook verify, which use neither the data folder nor a remote. */
const REMOTE_CAPABLE = [
  "tenant create",
  "tenant list",
  "tenant show",
  "tenant suspend",
  "tenant resume",
  "tenant webhook set",
  "tenant webhook rotate-secret",
  "key issue",
  "key revoke",
  "key list",
  "quota set",
  "profile show",
  "profile set",
  "login",
  "webhook verify",
];

const LOCAL_ONLY: Array<[string, string[]]> = [
  ["serve", ["serve", "--port", "0"]],
  ["migrate", ["migrate"]],
  ["lists import", ["lists", "import", join(SCREENING_FIXTURES, "sdn.csv")]],
  ["lists status", ["lists", "status"]],
  ["audit verify", ["audit", "verify", slug]],
  ["backup", ["backup", backupTarget]],
  ["screen", ["screen", "--name", "Boris Quillfeather"]],
];

function leaves(command: Command, prefix: string[] = []): string[] {
  if (command.commands.length === 0) return [prefix.join(" ")];
  return command.commands.flatMap((c) => leaves(c, [...prefix, c.name()]));
}

describe("--remote on a command that runs only on the appliance's host", () => {
  test("every command is either remote-capable or in the local-only list below", () => {
    expect(leaves(buildProgram()).sort()).toEqual([...REMOTE_CAPABLE, ...LOCAL_ONLY.map(([name]) => name)].sort());
  });

  test.concurrent.each(LOCAL_ONLY)("%s exits 2 and does nothing", async (name, args) => {
    const result = await runCli(["--remote", NOWHERE, "--token", "t", ...args], { dataDir: folder.dataDir, timeoutMs: 20_000 });
    expectCleanFailure(result, 2, new RegExp(`^error: aml ${name} runs only on the appliance's host, on its data folder: it has no --remote mode`));
  });

  test("nothing was imported or backed up by the refused commands", () => {
    expect(existsSync(backupTarget)).toBe(false);
    const versions = folder.ctx.db.sqlite.query<{ n: number }, []>("SELECT count(*) AS n FROM list_versions").get()?.n;
    expect(versions).toBe(0);
  });
});

describe("AML_REMOTE from the environment", () => {
  test("a local-only command works on the local folder and says on stderr that it ignored AML_REMOTE", async () => {
    const result = await runCli(["audit", "verify", slug], { dataDir: folder.dataDir, env: { AML_REMOTE: NOWHERE } });
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/intact\s+true/);
    expect(result.stderr).toBe("note: AML_REMOTE is ignored: aml audit verify works only on the local data folder\n");
  });

  test("a remote-capable command goes to the remote, never to the local folder", async () => {
    const result = await runCli(["tenant", "list"], { dataDir: folder.dataDir, env: { AML_REMOTE: NOWHERE, AML_TOKEN: "t" } });
    expect(result.code).not.toBe(0);
    expect(result.stdout).toBe("");
    expect(result.stderr).not.toContain(slug);
  });
});

describe("commands that use neither the data folder nor a remote accept --remote", () => {
  test("webhook verify still verifies", async () => {
    const body = join(folder.dataDir, "..", `${slug}-body.json`);
    writeFileSync(body, '{"event":"screening.completed"}');
    const secret = `whsec_${"a".repeat(40)}`;
    const ts = Math.floor(Date.now() / 1000);
    const signature = signWebhook(secret, ts, '{"event":"screening.completed"}');
    const args = ["--remote", NOWHERE, "webhook", "verify", "--secret", secret, "--timestamp", String(ts), "--signature", signature];
    const result = await runCli([...args, "--body-file", body], { dataDir: folder.dataDir });
    rmSync(body);
    expect(result).toMatchObject({ code: 0, stdout: "valid\n" });
  });

  test("login is not refused for --remote (it fails on its own missing flags)", async () => {
    const result = await runCli(["--remote", NOWHERE, "login"], { dataDir: folder.dataDir });
    expectCleanFailure(result, 2, /login needs --auth-url, --client-id and --client-secret \(or AML_AUTH_URL, AML_CLIENT_ID and AML_CLIENT_SECRET\)$/);
  });
});
