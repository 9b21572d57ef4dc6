import { readFileSync } from "node:fs";
import type { Command } from "commander";
import { DEFAULT_TOLERANCE_SECONDS, verifyWebhook } from "@/webhooks/verify";
import { globalOptions } from "../context";
import { printJson } from "../output";

interface VerifyOptions {
  secret: string;
  timestamp: string;
  signature: string;
  bodyFile?: string;
  tolerance: string;
  now?: string;
}

/** `aml webhook verify`: checks a captured delivery offline with the reference verifier; needs no data folder. */
export function registerWebhook(program: Command): void {
  const webhook = program.command("webhook").description("Webhook tools");
  webhook
    .command("verify")
    .description("Verify a captured delivery's X-AML-Signature and X-AML-Timestamp; exits 0 when valid, 1 when not")
    .requiredOption("--secret <secret>", "the tenant's webhook signing secret (whsec_...)")
    .requiredOption("--timestamp <unixSeconds>", "the X-AML-Timestamp header as received")
    .requiredOption("--signature <sha256=hex>", "the X-AML-Signature header as received")
    .option("--body-file <file>", "file holding the raw body exactly as received (default: read stdin)")
    .option("--tolerance <seconds>", "largest accepted age or lead of the timestamp", String(DEFAULT_TOLERANCE_SECONDS))
    .option("--now <unixSeconds>", "check as if the current time were this (for deliveries captured earlier)")
    .action(async (options: VerifyOptions, command: Command) => {
      const tolerance = wholeSeconds(options.tolerance, "--tolerance");
      const now = options.now === undefined ? new Date() : new Date(wholeSeconds(options.now, "--now") * 1000);
      // Bytes as received: a trailing newline is part of the signed body, so nothing is trimmed.
      const rawBody = options.bodyFile ? readFileSync(options.bodyFile, "utf8") : await Bun.stdin.text();
      const result = verifyWebhook({
        secret: options.secret,
        timestamp: options.timestamp,
        signature: options.signature,
        rawBody,
        toleranceSeconds: tolerance,
        now,
      });
      if (globalOptions(command).json) printJson({ valid: result.ok, ...(result.ok ? {} : { reason: result.reason }) });
      else console.log(result.ok ? "valid" : `invalid: ${result.reason}`);
      if (!result.ok) process.exitCode = 1;
    });
}

function wholeSeconds(value: string, flag: string): number {
  if (!/^\d{1,12}$/.test(value)) throw new Error(`${flag} must be a whole number of seconds`);
  return Number(value);
}
