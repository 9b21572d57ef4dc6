import { existsSync, rmdirSync, rmSync } from "node:fs";
import { userInfo } from "node:os";
import { join, resolve } from "node:path";
import type { Command } from "commander";
import { openContext } from "@/bootstrap";
import { showControlCharacters } from "@/lib/control-characters";
import { loadConfig } from "@/config";
import type { AppContext, CallMeta } from "@/context";
import { createLogger } from "@/lib/logger";
import { MASTER_KEY_FILE } from "@/lib/secret-box";
import { DB_FILE } from "@/storage/db";
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

/** What a command that sets an appliance up found missing, and so created, in its data folder. */
interface CreatedHere {
  folder: string;
  /** The folder itself did not exist. */
  newFolder: boolean;
  /** master.key did not exist. */
  newKey: boolean;
}

/**
 * Local mode: the CLI works directly on the data folder (never through HTTP), beside a running
 * server. `created` is set when a command that sets up (options.setsUp) created aml.db.
 */
function cliContext(command: Command, options: ContextOptions = {}): { ctx: AppContext; created: CreatedHere | null } {
  const opts = globalOptions(command);
  const config = loadConfig({ configFile: opts.config, flags: { dataDir: opts.dataDir } });
  const setsUp = options.setsUp === true;
  if (!setsUp) requireApplianceData(config.dataDir);
  const folder = resolve(config.dataDir);
  const created = setsUp && !existsSync(join(folder, DB_FILE)) ? { folder, newFolder: !existsSync(folder), newKey: !existsSync(join(folder, MASTER_KEY_FILE)) } : null;
  // CLI output is for people and scripts; keep JSON logs quiet unless something is wrong.
  return { ctx: openContext(config, { log: createLogger("warn"), create: setsUp }), created };
}

/**
 * Whether the database holds nothing a command wrote: no tenant, no list version, no audit entry
 * (every change of either writes one), only the schema.
 */
function holdsNothing(ctx: AppContext): boolean {
  try {
    const row = ctx.db.sqlite
      .query<{ n: number }, []>("SELECT (SELECT count(*) FROM tenants) + (SELECT count(*) FROM list_versions) + (SELECT count(*) FROM audit_log) AS n")
      .get();
    return row?.n === 0;
  } catch {
    // Unreadable (the failure itself may be the database): keep it, and let the command's error speak.
    return false;
  }
}

/** Removes what a refused setup command created: the database with its WAL files, the key it made, and a folder it made, if left empty. */
function removeCreated(created: CreatedHere): void {
  for (const file of [DB_FILE, `${DB_FILE}-wal`, `${DB_FILE}-shm`, ...(created.newKey ? [MASTER_KEY_FILE] : [])]) {
    rmSync(join(created.folder, file), { force: true });
  }
  if (created.newFolder) {
    try {
      rmdirSync(created.folder);
    } catch {
      // Not empty: something else put files there meanwhile; it stays.
    }
  }
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
  const { ctx, created } = cliContext(command, options);
  let refusedOnNothing = false;
  try {
    return await body(ctx, globalOptions(command).json === true);
  } catch (error) {
    // A refused first import or tenant create must not leave an empty appliance behind: a later
    // command given the same mistyped --data-dir would then find "no list imported yet" instead of
    // refusing a folder with no aml.db.
    refusedOnNothing = created !== null && holdsNothing(ctx);
    throw error;
  } finally {
    ctx.db.close();
    if (refusedOnNothing && created) removeCreated(created);
  }
}
