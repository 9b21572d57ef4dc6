import { existsSync } from "node:fs";
import { userInfo } from "node:os";
import { join, resolve } from "node:path";
import type { Command } from "commander";
import { openContext } from "@/bootstrap";
import { showControlCharacters } from "@/lib/control-characters";
import { type Config, loadConfig } from "@/config";
import type { AppContext, CallMeta } from "@/context";
import { createLogger } from "@/lib/logger";
import { DB_FILE } from "@/storage/db";
import { ImportLockError } from "@/watchlists/store/import-lock";
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
  /**
   * Refusals of the command's input that need the configuration but no database (a tenant's fields
   * and webhook URL policy): run before the data folder is opened, or created.
   */
  check?: (config: Config) => void;
}

export function globalOptions(command: Command): GlobalOptions {
  return command.optsWithGlobals<GlobalOptions>();
}

/**
 * Lines runCli prints after a failed command's error line: what the error alone would leave the
 * operator to find out.
 */
const notesAfterError: string[] = [];

/** The notes a failed command left, once (runCli prints them after its error line). */
export function takeNotesAfterError(): string[] {
  return notesAfterError.splice(0);
}

/**
 * Local mode: the CLI works directly on the data folder (never through HTTP), beside a running
 * server. `createdIn` is the folder when a command that sets up (options.setsUp) found no aml.db there.
 */
function cliContext(command: Command, options: ContextOptions = {}): { ctx: AppContext; createdIn: string | null } {
  const opts = globalOptions(command);
  const config = loadConfig({ configFile: opts.config, flags: { dataDir: opts.dataDir } });
  const setsUp = options.setsUp === true;
  if (!setsUp) requireApplianceData(config.dataDir);
  options.check?.(config);
  const folder = resolve(config.dataDir);
  const createdIn = setsUp && !existsSync(join(folder, DB_FILE)) ? folder : null;
  // CLI output is for people and scripts; keep JSON logs quiet unless something is wrong.
  return { ctx: openContext(config, { log: createLogger("warn"), create: setsUp }), createdIn };
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
  const { ctx, createdIn } = cliContext(command, options);
  try {
    return await body(ctx, globalOptions(command).json === true);
  } catch (error) {
    // A refused first import or tenant create leaves the new, empty appliance it set up: a later
    // command given the same mistyped --data-dir then finds "no list imported yet" rather than "no
    // aml.db". It is said, not removed: another process (a server, a second import) may have opened
    // the new database meanwhile, and removing it under them lost a successful import (review).
    // Not when another import holds the lock: that one is setting the folder up.
    if (createdIn !== null && !(error instanceof ImportLockError) && holdsNothing(ctx)) {
      notesAfterError.push(
        `note: ${createdIn} held no appliance before this command, which created its database; it still holds no list, tenant or audit entry. If --data-dir (or AML_DATA_DIR) was mistyped, remove that folder.`,
      );
    }
    throw error;
  } finally {
    ctx.db.close();
  }
}
