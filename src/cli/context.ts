import { userInfo } from "node:os";
import type { Command } from "commander";
import { openContext } from "@/bootstrap";
import { showControlCharacters } from "@/lib/control-characters";
import { loadConfig } from "@/config";
import type { AppContext, CallMeta } from "@/context";
import { createLogger } from "@/lib/logger";
import { requireApplianceData } from "./paths";

export interface GlobalOptions {
  dataDir?: string;
  config?: string;
  json?: boolean;
}

export interface ContextOptions {
  /**
   * The command sets an appliance up (tenant create, lists import) and may create a new data folder.
   * Every other command needs an existing aml.db, so that a mistyped --data-dir fails instead of
   * creating an empty appliance that answers "(none)" or backs up nothing.
   */
  setsUp?: boolean;
}

export function globalOptions(command: Command): GlobalOptions {
  return command.optsWithGlobals<GlobalOptions>();
}

/** Local mode: the CLI works directly on the data folder (never through HTTP), beside a running server. */
export function cliContext(command: Command, options: ContextOptions = {}): AppContext {
  const opts = globalOptions(command);
  const config = loadConfig({ configFile: opts.config, flags: { dataDir: opts.dataDir } });
  const setsUp = options.setsUp === true;
  if (!setsUp) requireApplianceData(config.dataDir);
  // CLI output is for people and scripts; keep JSON logs quiet unless something is wrong.
  return openContext(config, { log: createLogger("warn"), create: setsUp });
}

/**
 * The person behind the command, for audit entries: under `sudo -u aml` SUDO_USER names them while
 * USER and LOGNAME name the service account.
 */
export function cliMeta(): CallMeta {
  return { actor: { type: "cli", id: showControlCharacters(operatorName()) } };
}

/**
 * Who runs the command, for the audit entries it writes. cliMeta shows its control characters as
 * U+FFFD: the name comes from the environment, and stored as given an ESC or a line break in it would
 * rewrite the terminal of whoever lists the entry, or forge a line of the CSV export.
 */
function operatorName(): string {
  for (const name of [process.env.SUDO_USER, process.env.LOGNAME, process.env.USER]) if (name) return name;
  try {
    // Bun's userInfo() reads $USER and answers "unknown" without it; Node's reads the passwd entry.
    const { username } = userInfo();
    if (username && username !== "unknown") return username;
  } catch {
    // Some containers have no passwd entry for the uid.
  }
  const uid = process.getuid?.();
  return uid === undefined ? "unknown" : `uid:${uid}`;
}

/** Runs a command body with an opened context, always closing the database. */
export async function withContext<T>(
  command: Command,
  body: (ctx: AppContext, json: boolean) => T | Promise<T>,
  options: ContextOptions = {},
): Promise<T> {
  const ctx = cliContext(command, options);
  try {
    return await body(ctx, globalOptions(command).json === true);
  } finally {
    ctx.db.close();
  }
}
