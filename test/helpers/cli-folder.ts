import { expect } from "bun:test";
import { rmSync } from "node:fs";
import { openContext } from "@/bootstrap";
import { loadConfig } from "@/config";
import type { AppContext } from "@/context";
import type { Tenant } from "@/tenants/schemas";
import { type CliResult, runCli } from "./cli";
import { tempDataDir } from "./server";

/**
 * A temp data folder for CLI tests: the commands under test run as separate processes, while setup and
 * checks use an in-process context on the same SQLite file (cheaper than a CLI round trip per fixture).
 */
export interface CliFolder {
  dataDir: string;
  ctx: AppContext;
  aml(args: string[]): Promise<CliResult>;
  close(): void;
}

export function cliFolder(prefix = "aml-cli-"): CliFolder {
  const dataDir = tempDataDir(prefix);
  const ctx = openContext(loadConfig({ env: {}, flags: { dataDir, logLevel: "silent" } }));
  return {
    dataDir,
    ctx,
    aml: (args) => runCli(args, { dataDir }),
    close() {
      ctx.db.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** Output of `tenant create --json` and POST /v1/tenants. */
export interface CreatedJson extends Tenant {
  apiKey: string;
  apiKeyId: string;
  webhookSigningSecret: string;
}

export const API_KEY_RE = /aml_live_[0-9A-Za-z]{40}/g;
export const SECRET_RE = /whsec_[0-9A-Za-z]{40}/g;

/** A failed command: the exit code, nothing on stdout, an "error:" line, at most field bullets after it, no stack. */
export function expectCleanFailure(result: CliResult, code: number, message: string | RegExp): void {
  expect(result.code).toBe(code);
  expect(result.stdout).toBe("");
  const lines = result.stderr.trimEnd().split("\n");
  expect(lines[0]).toStartWith("error: ");
  expect(lines[0]).toMatch(message);
  for (const line of lines.slice(1)) expect(line).toMatch(/^ {2}- \S+: /);
  // A single issue is listed below the error line only when that line does not already say it.
  const single = lines.length === 2 ? /^ {2}- (\S+): (.*)$/.exec(lines[1] ?? "") : null;
  if (single) expect((lines[0] ?? "").includes(single[1] ?? "") && (lines[0] ?? "").includes(single[2] ?? "")).toBe(false);
  expect(result.stderr).not.toMatch(/^\s+at /m);
}
