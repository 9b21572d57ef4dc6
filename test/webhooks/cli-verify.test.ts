import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { signWebhook } from "@/webhooks/sign";
import { runCli } from "../helpers/cli";

const REPO = join(import.meta.dir, "..", "..");
const dir = mkdtempSync(join(tmpdir(), "aml-webhook-cli-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const secret = "whsec_cliTestSecret0123456789abcdefghijklmn";
const body = '{"event":"screening.completed","screeningId":"0190e9b4-0000-7000-8000-000000000001","isMatch":false}\n';
const bodyFile = join(dir, "body.json");
writeFileSync(bodyFile, body);
const ts = Math.floor(Date.now() / 1000);
const signature = signWebhook(secret, ts, body);
const base = ["webhook", "verify", "--secret", secret, "--signature", signature];

async function verifyFromStdin(stdin: string, args: string[]): Promise<{ code: number; stdout: string }> {
  const proc = Bun.spawn([process.execPath, "run", join(REPO, "src/main.ts"), ...args], {
    cwd: REPO,
    env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "/tmp", TZ: "UTC" },
    stdin: new Blob([stdin]),
    stdout: "pipe",
    stderr: "pipe",
  });
  const [stdout, code] = await Promise.all([new Response(proc.stdout).text(), proc.exited]);
  return { code, stdout };
}

describe("aml webhook verify", () => {
  test("exit 0 for a valid capture from a file, exit 1 with the reason for a tampered one", async () => {
    const valid = await runCli([...base, "--timestamp", String(ts), "--body-file", bodyFile], { dataDir: dir });
    expect(valid).toMatchObject({ code: 0, stdout: "valid\n" });

    const tamperedFile = join(dir, "tampered.json");
    writeFileSync(tamperedFile, body.replace("false", "true"));
    const tampered = await runCli([...base, "--timestamp", String(ts), "--body-file", tamperedFile], { dataDir: dir });
    expect(tampered).toMatchObject({ code: 1, stdout: "invalid: signature_mismatch\n" });
  });

  test("an old capture fails on its timestamp unless --now places the check at capture time", async () => {
    const old = ts - 3_600;
    const oldSignature = signWebhook(secret, old, body);
    const args = ["webhook", "verify", "--secret", secret, "--signature", oldSignature, "--timestamp", String(old), "--body-file", bodyFile];
    expect(await runCli(args, { dataDir: dir })).toMatchObject({ code: 1, stdout: "invalid: timestamp_too_old\n" });
    expect(await runCli([...args, "--now", String(old + 10)], { dataDir: dir })).toMatchObject({ code: 0, stdout: "valid\n" });
    expect(await runCli([...args, "--tolerance", "7200"], { dataDir: dir })).toMatchObject({ code: 0 });
  });

  test("reads the raw body from stdin and prints JSON with --json", async () => {
    const ok = await verifyFromStdin(body, ["--json", ...base, "--timestamp", String(ts)]);
    expect(ok.code).toBe(0);
    expect(JSON.parse(ok.stdout)).toEqual({ valid: true, reason: null, hint: null });
    const bad = await verifyFromStdin(body, ["--json", "webhook", "verify", "--secret", secret, "--signature", "sha256=zz", "--timestamp", String(ts)]);
    expect(bad.code).toBe(1);
    expect(JSON.parse(bad.stdout)).toEqual({ valid: false, reason: "malformed_signature", hint: null });
  });
});
