import { readFileSync } from "node:fs";
import type { Command } from "commander";
import { invalidInput } from "@/errors";
import { WEBHOOK_SECRET_PREFIX, WEBHOOK_SECRET_RE } from "@/auth/api-key-format";
import { DEFAULT_TOLERANCE_SECONDS, verifyWebhook } from "@/webhooks/verify";
import { globalOptions } from "../context";
import { printJson } from "../output";
import { allowsRemote } from "../remote";

interface VerifyOptions {
  secret?: string;
  secretFile?: string;
  timestamp?: string;
  signature?: string;
  bodyFile?: string;
  tolerance: string;
  now?: string;
}

/** Read when neither --secret nor --secret-file is given, so the secret need not be on the command line. */
const SECRET_ENV = "AML_WEBHOOK_SECRET";

/**
 * `aml webhook verify`: checks a captured delivery offline with the reference verifier; needs no data
 * folder. Exit codes: 0 valid, 1 invalid, 2 a usage error (a missing or unreadable input, an empty
 * secret or one that is not a whsec_ value, a bad flag value), so a script never reads a typo as
 * "invalid".
 */
export function registerWebhook(program: Command): void {
  const webhook = program.command("webhook").description("Webhook tools");
  allowsRemote(webhook.command("verify"))
    .description("Verify a captured delivery's X-AML-Signature and X-AML-Timestamp; exits 0 when valid, 1 when not, 2 on a usage error")
    .option("--secret-file <file>", "file holding the tenant's webhook signing secret (whsec_...); a trailing newline is ignored")
    .option("--secret <secret>", `the signing secret itself (visible in the process list and shell history; prefer --secret-file or ${SECRET_ENV})`)
    .option("--timestamp <unixSeconds>", "the X-AML-Timestamp header as received (required)")
    .option("--signature <sha256=hex>", "the X-AML-Signature header as received (required)")
    .option("--body-file <file>", "file holding the raw body exactly as received (default: read stdin)")
    .option("--tolerance <seconds>", "largest accepted age or lead of the timestamp", String(DEFAULT_TOLERANCE_SECONDS))
    .option("--now <unixSeconds>", "check as if the current time were this (for deliveries captured earlier)")
    .action(async (options: VerifyOptions, command: Command) => {
      const secret = readSecret(options);
      if (options.timestamp === undefined) throw invalidInput("--timestamp is required: the X-AML-Timestamp header as received");
      if (options.signature === undefined) throw invalidInput("--signature is required: the X-AML-Signature header as received");
      const tolerance = wholeSeconds(options.tolerance, "--tolerance");
      const now = options.now === undefined ? new Date() : new Date(wholeSeconds(options.now, "--now") * 1000);
      const body = await readBody(options.bodyFile);
      const result = verifyBytes({ secret, timestamp: options.timestamp, signature: options.signature, body, toleranceSeconds: tolerance, now });
      const hint = result.ok ? undefined : hintFor(result.reason, options.timestamp);
      // The same keys whatever the verdict, so a script can read .reason without testing for it first.
      if (globalOptions(command).json) printJson({ valid: result.ok, reason: result.ok ? null : result.reason, hint: hint ?? null });
      else console.log(result.ok ? "valid" : `invalid: ${result.reason}${hint ? ` (${hint})` : ""}`);
      if (!result.ok) process.exitCode = 1;
    });
}

type VerifyResult = ReturnType<typeof verifyWebhook>;

const STRICT_UTF8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
const LENIENT_UTF8 = new TextDecoder("utf-8", { ignoreBOM: true });

/**
 * The reference verifier over the body's bytes. The appliance signs the UTF-8 bytes of the JSON it
 * serialised. Bytes that are valid UTF-8 are decoded strictly (a leading BOM kept, as ignoreBOM
 * does), so the string the verifier HMACs encodes back to exactly these bytes. Bytes that are not
 * valid UTF-8 cannot be what the appliance signed: after the header and timestamp checks they fail
 * as signature_mismatch, even where a lenient decoding (U+FFFD for each bad byte) would match.
 */
function verifyBytes(input: { secret: string; timestamp: string; signature: string; body: Uint8Array; toleranceSeconds: number; now: Date }): VerifyResult {
  const { body, ...rest } = input;
  let rawBody: string;
  try {
    rawBody = STRICT_UTF8.decode(body);
  } catch {
    const result = verifyWebhook({ ...rest, rawBody: LENIENT_UTF8.decode(body) });
    return result.ok ? { ok: false, reason: "signature_mismatch" } : result;
  }
  return verifyWebhook({ ...rest, rawBody });
}

function readSecret(options: VerifyOptions): string {
  if (options.secret !== undefined && options.secretFile !== undefined) throw invalidInput("Give --secret or --secret-file, not both.");
  let secret: string | undefined;
  let from: string;
  if (options.secretFile !== undefined) {
    // A secret never holds whitespace; a file written by echo or an editor ends with a newline.
    secret = readInput(options.secretFile, "--secret-file").toString("utf8").trim();
    from = `--secret-file ${options.secretFile}`;
  } else {
    secret = options.secret ?? process.env[SECRET_ENV];
    from = options.secret !== undefined ? "--secret" : SECRET_ENV;
  }
  if (secret === undefined) throw invalidInput(`Give the signing secret with --secret-file <file>, the ${SECRET_ENV} environment variable, or --secret.`);
  // An operator's mistake, not a verdict on the delivery: a usage error (exit 2), never "invalid".
  // The value itself is not echoed: it may be most of a real secret.
  if (secret === "") throw invalidInput(`The signing secret from ${from} is empty; give the tenant's whsec_ secret.`);
  if (!WEBHOOK_SECRET_RE.test(secret)) {
    const rest = secret.startsWith(WEBHOOK_SECRET_PREFIX) ? secret.slice(WEBHOOK_SECRET_PREFIX.length) : null;
    const why = rest === null ? "does not start with whsec_" : rest.trim() === "" ? "has nothing after whsec_" : "holds characters other than letters and digits after whsec_";
    throw invalidInput(`The signing secret from ${from} ${why}; give the tenant's whsec_ secret exactly as it was shown.`);
  }
  return secret;
}

async function readBody(bodyFile: string | undefined): Promise<Uint8Array> {
  // Bytes as received: nothing is decoded, trimmed or normalised before the HMAC.
  const body = bodyFile !== undefined ? readInput(bodyFile, "--body-file") : await readStdin();
  // No delivery has an empty body. An empty one is a forgotten --body-file in a script (stdin not a
  // terminal but empty) or an empty capture: a usage error (2), not the verdict "invalid" (1).
  if (body.byteLength === 0) {
    throw invalidInput(`The body ${bodyFile !== undefined ? `in --body-file ${bodyFile}` : "on stdin"} is empty; give the delivery's raw body with --body-file <file>, or pipe it on stdin.`);
  }
  return body;
}

function readStdin(): Promise<Uint8Array> {
  if (process.stdin.isTTY) throw invalidInput("Give the raw body with --body-file <file>, or pipe it on stdin.");
  return Bun.stdin.bytes();
}

function readInput(file: string, flag: string): Buffer {
  try {
    return readFileSync(file);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const why = code === "ENOENT" ? "no such file" : code === "EACCES" ? "permission denied" : code === "EISDIR" ? "it is a folder" : (error as Error).message;
    throw invalidInput(`Cannot read ${flag} ${file}: ${why}`);
  }
}

function wholeSeconds(value: string, flag: string): number {
  if (/^\d{13}$/.test(value)) throw invalidInput(`${flag} must be in seconds; ${value} has 13 digits and looks like milliseconds`);
  if (!/^\d{1,12}$/.test(value)) throw invalidInput(`${flag} must be a whole number of seconds, got "${value}"`);
  return Number(value);
}

function hintFor(reason: string, timestamp: string): string | undefined {
  if (reason === "malformed_timestamp" && /^\d{13}$/.test(timestamp.trim())) {
    return "the timestamp has 13 digits and looks like milliseconds; X-AML-Timestamp is in Unix seconds";
  }
  return undefined;
}
