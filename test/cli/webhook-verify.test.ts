import { afterAll, describe, expect, test } from "bun:test";
import { createHmac } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { signWebhook } from "@/webhooks/sign";
import type { CliResult } from "../helpers/cli";
import { expectCleanFailure } from "../helpers/cli-folder";

/**
 * `aml webhook verify` on the body's bytes, with the secret off the command line, and with usage
 * errors (exit 2) kept apart from "invalid" (exit 1).
 */
const REPO = join(import.meta.dir, "..", "..");
const dir = mkdtempSync(join(tmpdir(), "aml-verify-cli-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const secret = "whsec_verifyCliSecret0123456789abcdefghij";
const body = '{"event":"screening.completed","screeningId":"0190e9b4-0000-7000-8000-000000000001","userReference":"Zoë ✓"}';
const ts = Math.floor(Date.now() / 1000);
const signature = signWebhook(secret, ts, body);
const BOM = Buffer.from([0xef, 0xbb, 0xbf]);

function file(name: string, content: string | Uint8Array): string {
  const path = join(dir, name);
  writeFileSync(path, content);
  return path;
}
const secretFile = file("secret", `${secret}\n`);
const bodyFile = file("body.json", body);

/** The real CLI as a process: `aml [--json] webhook verify <args>`, stdin getting exactly these bytes (or nothing). */
async function run(args: string[], options: { stdin?: Uint8Array; env?: Record<string, string> } = {}): Promise<CliResult> {
  const globals = args[0] === "--json" ? ["--json"] : [];
  const rest = args.slice(globals.length);
  const proc = Bun.spawn([process.execPath, "run", join(REPO, "src/main.ts"), ...globals, "webhook", "verify", ...rest], {
    cwd: REPO,
    env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "/tmp", TZ: "UTC", ...(options.env ?? {}) },
    stdin: options.stdin ? new Blob([options.stdin]) : "ignore",
    stdout: "pipe",
    stderr: "pipe",
  });
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  return { code, stdout, stderr };
}
const headers = (t: string | number = ts, sig = signature) => ["--timestamp", String(t), "--signature", sig];

/** A signature over raw bytes, as a signer that is not the appliance's could make one. */
function signBytes(bytes: Uint8Array, t = ts): string {
  return `sha256=${createHmac("sha256", secret).update(`${t}.`).update(bytes).digest("hex")}`;
}

describe("the body is verified as bytes", () => {
  test("a valid body verifies from stdin and from --body-file", async () => {
    expect(await run(["--secret-file", secretFile, ...headers()], { stdin: Buffer.from(body) })).toMatchObject({ code: 0, stdout: "valid\n" });
    expect(await run(["--secret-file", secretFile, ...headers(), "--body-file", bodyFile])).toMatchObject({ code: 0, stdout: "valid\n" });
  });

  test("--json has the same keys for a valid and an invalid delivery, so a script can read .reason either way", async () => {
    const valid = await run(["--json", "--secret-file", secretFile, ...headers(), "--body-file", bodyFile]);
    expect(valid.code).toBe(0);
    expect(JSON.parse(valid.stdout)).toEqual({ valid: true, reason: null, hint: null });
    const invalid = await run(["--json", "--secret-file", secretFile, ...headers(ts, signBytes(Buffer.from(`${body} `))), "--body-file", bodyFile]);
    expect(invalid.code).toBe(1);
    expect(JSON.parse(invalid.stdout)).toEqual({ valid: false, reason: "signature_mismatch", hint: null });
  });

  test("a leading UTF-8 BOM that was not signed is invalid, on stdin and in a file", async () => {
    const withBom = Buffer.concat([BOM, Buffer.from(body)]);
    const piped = await run(["--secret-file", secretFile, ...headers()], { stdin: withBom });
    expect(piped).toMatchObject({ code: 1, stdout: "invalid: signature_mismatch\n" });
    const fromFile = await run(["--secret-file", secretFile, ...headers(), "--body-file", file("bom.json", withBom)]);
    expect(fromFile).toMatchObject({ code: 1, stdout: "invalid: signature_mismatch\n" });
  });

  test("a BOM that was signed is part of the body and verifies", async () => {
    const withBom = Buffer.concat([BOM, Buffer.from(body)]);
    const signed = signBytes(withBom);
    expect(signed).toBe(signWebhook(secret, ts, `\uFEFF${body}`));
    expect(await run(["--secret-file", secretFile, ...headers(ts, signed)], { stdin: withBom })).toMatchObject({ code: 0, stdout: "valid\n" });
  });

  test("invalid UTF-8 is not replaced: bytes that decode to the signed U+FFFD are still invalid", async () => {
    // The appliance signed a body holding U+FFFD (EF BF BD); the capture holds a lone 0xFF where it was.
    const signedText = body.replace("✓", "\uFFFD");
    const signed = signWebhook(secret, ts, signedText);
    const exact = Buffer.from(signedText);
    expect(await run(["--secret-file", secretFile, ...headers(ts, signed)], { stdin: exact })).toMatchObject({ code: 0 });
    const mangled = Buffer.concat([Buffer.from(body.slice(0, body.indexOf("✓"))), Buffer.from([0xff]), Buffer.from(body.slice(body.indexOf("✓") + 1))]);
    expect(new TextDecoder().decode(mangled)).toBe(signedText);
    const res = await run(["--secret-file", secretFile, ...headers(ts, signed)], { stdin: mangled });
    expect(res).toMatchObject({ code: 1, stdout: "invalid: signature_mismatch\n" });
    const fromFile = await run(["--secret-file", secretFile, ...headers(ts, signed), "--body-file", file("mangled.json", mangled)]);
    expect(fromFile).toMatchObject({ code: 1, stdout: "invalid: signature_mismatch\n" });
  });

  test("a trailing newline is part of the body", async () => {
    const res = await run(["--secret-file", secretFile, ...headers()], { stdin: Buffer.from(`${body}\n`) });
    expect(res).toMatchObject({ code: 1, stdout: "invalid: signature_mismatch\n" });
  });

  test("header checks still come first: a malformed signature is reported as such for invalid UTF-8 too", async () => {
    const res = await run(["--json", "--secret-file", secretFile, ...headers(ts, "sha256=zz")], { stdin: Buffer.from([0xff, 0xfe]) });
    expect(res.code).toBe(1);
    expect(JSON.parse(res.stdout)).toEqual({ valid: false, reason: "malformed_signature", hint: null });
  });
});

describe("the secret need not be on the command line", () => {
  test("--secret-file (its trailing newline ignored)", async () => {
    expect(await run(["--secret-file", secretFile, ...headers(), "--body-file", bodyFile])).toMatchObject({ code: 0, stdout: "valid\n" });
    const wrong = file("wrong-secret", "whsec_notTheRightOne\n");
    expect(await run(["--secret-file", wrong, ...headers(), "--body-file", bodyFile])).toMatchObject({ code: 1, stdout: "invalid: signature_mismatch\n" });
  });

  test("AML_WEBHOOK_SECRET, used when no flag names a secret", async () => {
    expect(await run([...headers(), "--body-file", bodyFile], { env: { AML_WEBHOOK_SECRET: secret } })).toMatchObject({ code: 0, stdout: "valid\n" });
    // A flag wins over the environment.
    const res = await run(["--secret", "whsec_other", ...headers(), "--body-file", bodyFile], { env: { AML_WEBHOOK_SECRET: secret } });
    expect(res).toMatchObject({ code: 1, stdout: "invalid: signature_mismatch\n" });
  });

  test("--secret still works", async () => {
    expect(await run(["--secret", secret, ...headers(), "--body-file", bodyFile])).toMatchObject({ code: 0, stdout: "valid\n" });
  });

  test("an empty or mistyped secret is a usage error naming where it came from, not a verdict on the delivery", async () => {
    const empty = file("empty-secret", "\n");
    const emptyRun = await run(["--secret-file", empty, ...headers(), "--body-file", bodyFile]);
    expect(emptyRun).toMatchObject({ code: 2, stdout: "" });
    expect(emptyRun.stderr).toContain(`The signing secret from --secret-file ${empty} is empty`);

    const labelled = file("labelled-secret", `Webhook signing secret: ${secret}\n`);
    const labelledRun = await run(["--secret-file", labelled, ...headers(), "--body-file", bodyFile]);
    expect(labelledRun).toMatchObject({ code: 2, stdout: "" });
    expect(labelledRun.stderr).toContain("does not start with whsec_");
    expect(labelledRun.stderr).not.toContain(secret);

    const bare = await run(["--secret", secret.slice("whsec_".length), ...headers(), "--body-file", bodyFile]);
    expect(bare).toMatchObject({ code: 2, stdout: "" });
    expect(bare.stderr).toContain("The signing secret from --secret does not start with whsec_");

    const spaced = await run([...headers(), "--body-file", bodyFile], { env: { AML_WEBHOOK_SECRET: `${secret} x` } });
    expect(spaced).toMatchObject({ code: 2, stdout: "" });
    expect(spaced.stderr).toContain("from AML_WEBHOOK_SECRET holds characters other than letters and digits after whsec_");

    const prefixOnly = await run(["--secret", "whsec_ ", ...headers(), "--body-file", bodyFile]);
    expect(prefixOnly).toMatchObject({ code: 2, stdout: "" });
    expect(prefixOnly.stderr).toContain("The signing secret from --secret has nothing after whsec_");
  });
});

describe("usage errors exit 2, with one error line and nothing on stdout", () => {
  test.concurrent.each([
    ["no secret at all", [...headers(), "--body-file", bodyFile], /Give the signing secret with --secret-file <file>, the AML_WEBHOOK_SECRET/],
    ["--secret and --secret-file together", ["--secret", secret, "--secret-file", secretFile, ...headers(), "--body-file", bodyFile], /not both/],
    ["a missing secret file", ["--secret-file", join(dir, "no-such-secret"), ...headers(), "--body-file", bodyFile], /Cannot read --secret-file .*no such file/],
    ["a missing body file", ["--secret-file", secretFile, ...headers(), "--body-file", join(dir, "no-such-body")], /Cannot read --body-file .*no such file/],
    ["a folder as the body file", ["--secret-file", secretFile, ...headers(), "--body-file", dir], /Cannot read --body-file .*it is a folder/],
    ["--tolerance abc", ["--secret-file", secretFile, ...headers(), "--body-file", bodyFile, "--tolerance", "abc"], /--tolerance must be a whole number of seconds, got "abc"/],
    ["--now -5", ["--secret-file", secretFile, ...headers(), "--body-file", bodyFile, "--now", "-5"], /--now must be a whole number of seconds/],
    ["--now in milliseconds", ["--secret-file", secretFile, ...headers(), "--body-file", bodyFile, "--now", "1750000000000"], /--now must be in seconds; 1750000000000 has 13 digits and looks like milliseconds/],
    ["no --timestamp", ["--secret-file", secretFile, "--signature", signature, "--body-file", bodyFile], /--timestamp is required/],
    ["no --signature", ["--secret-file", secretFile, "--timestamp", String(ts), "--body-file", bodyFile], /--signature is required/],
  ])("%s", async (_what, args, message) => {
    expectCleanFailure(await run(args), 2, message);
  });

  test("an empty body (a forgotten --body-file in a script, an empty capture) is a usage error, not the verdict invalid", async () => {
    const fromStdin = await run(["--secret-file", secretFile, ...headers()], { stdin: new Uint8Array() });
    expectCleanFailure(fromStdin, 2, /The body on stdin is empty/);
    const emptyFile = file("empty-body", "");
    expectCleanFailure(await run(["--secret-file", secretFile, ...headers(), "--body-file", emptyFile]), 2, /The body in --body-file .* is empty/);
  });

  test("an unknown option exits 2 as well, not 1", async () => {
    const res = await run(["--secret-file", secretFile, ...headers(), "--body-file", bodyFile, "--bogus"]);
    expect(res.code).toBe(2);
    expect(res.stdout).toBe("");
    expect(res.stderr).toStartWith("error: unknown option '--bogus'");
  });
});

describe("a 13-digit timestamp", () => {
  test("is reported as looking like milliseconds", async () => {
    const ms = String(ts * 1000);
    const res = await run(["--secret-file", secretFile, ...headers(ms), "--body-file", bodyFile]);
    expect(res.code).toBe(1);
    expect(res.stdout).toBe("invalid: malformed_timestamp (the timestamp has 13 digits and looks like milliseconds; X-AML-Timestamp is in Unix seconds)\n");
    const json = await run(["--json", "--secret-file", secretFile, ...headers(ms), "--body-file", bodyFile]);
    expect(json.code).toBe(1);
    expect(JSON.parse(json.stdout)).toEqual({
      valid: false,
      reason: "malformed_timestamp",
      hint: "the timestamp has 13 digits and looks like milliseconds; X-AML-Timestamp is in Unix seconds",
    });
  });

  test("other malformed timestamps get no such hint", async () => {
    const res = await run(["--secret-file", secretFile, ...headers("17500000000000"), "--body-file", bodyFile]);
    expect(res).toMatchObject({ code: 1, stdout: "invalid: malformed_timestamp\n" });
  });
});
