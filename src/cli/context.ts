import { userInfo } from "node:os";
import type { Command } from "commander";
import { openContext } from "@/bootstrap";
import { loadConfig } from "@/config";
import type { AppContext, CallMeta } from "@/context";
import { createLogger } from "@/lib/logger";

export interface GlobalOptions {
  dataDir?: string;
  config?: string;
  json?: boolean;
}

export function globalOptions(command: Command): GlobalOptions {
  return command.optsWithGlobals<GlobalOptions>();
}

/** Local mode: the CLI works directly on the data folder (never through HTTP), beside a running server. */
export function cliContext(command: Command): AppContext {
  const opts = globalOptions(command);
  const config = loadConfig({ configFile: opts.config, flags: { dataDir: opts.dataDir } });
  // CLI output is for people and scripts; keep JSON logs quiet unless something is wrong.
  return openContext(config, { log: createLogger("warn") });
}

export function cliMeta(): CallMeta {
  let operator = "unknown";
  try {
    operator = userInfo().username;
  } catch {
    // Some containers have no passwd entry for the uid; the audit entry still says it came from the CLI.
  }
  return { actor: { type: "cli", id: operator } };
}

/** Runs a command body with an opened context, always closing the database. */
export async function withContext<T>(command: Command, body: (ctx: AppContext, json: boolean) => T | Promise<T>): Promise<T> {
  const ctx = cliContext(command);
  try {
    return await body(ctx, globalOptions(command).json === true);
  } finally {
    ctx.db.close();
  }
}
