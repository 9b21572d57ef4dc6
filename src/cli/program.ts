import { Command, CommanderError } from "commander";
import { ConfigError } from "@/config";
import { ServiceError } from "@/errors";
import { MasterKeyError } from "@/storage/master-key";
import { MigrationError } from "@/storage/migrate";
import { ImportLockError } from "@/watchlists/store/import-lock";
import { registerAudit } from "./commands/audit";
import { registerBackup } from "./commands/backup";
import { registerKey } from "./commands/key";
import { registerLists } from "./commands/lists";
import { registerLogin } from "./commands/login";
import { registerMigrate } from "./commands/migrate";
import { registerProfile } from "./commands/profile";
import { registerQuota } from "./commands/quota";
import { registerScreen } from "./commands/screen";
import { registerServe } from "./commands/serve";
import { registerTenant } from "./commands/tenant";
import { registerWebhook } from "./commands/webhook";
import { takeNotesAfterError } from "./context";
import { USAGE_EXIT, usageErrorsExit2 } from "./exit-codes";
import { refuseRemote } from "./remote";

export const VERSION = "0.1.0";

const HELP_AFTER = `
Data folder: only serve, migrate, lists import and tenant create may create a new one. Every other
command exits 2, creating nothing, when the data folder has no aml.db (a mistyped --data-dir).

Remote: --remote works for tenant, key, quota and profile commands (login and webhook verify accept
it and use neither the remote nor the data folder). Every other command runs only on the appliance's
host and exits 2 when given --remote. AML_REMOTE is a default for the remote-capable commands only:
the others ignore it, work on the local data folder and say so on stderr.`;

export function buildProgram(): Command {
  const program = new Command("aml")
    .description("Sanctions, PEP and adverse-media screening appliance")
    .version(VERSION)
    .option("-d, --data-dir <dir>", "data folder (default ./data, env AML_DATA_DIR)")
    .option("-c, --config <file>", "JSON config file (env AML_CONFIG)")
    .option("--json", "print JSON instead of tables")
    .option(
      "--remote <url>",
      "run tenant, key, quota and profile commands against a remote appliance's admin API (env AML_REMOTE, a default for those commands only); the other commands run only on the appliance's host and refuse --remote",
    )
    .option("--token <token>", "bearer token for --remote (env AML_TOKEN; default: the token saved by `aml login`)")
    .showHelpAfterError()
    .hook("preAction", (_program, action) => refuseRemote(action))
    .addHelpText("after", HELP_AFTER);
  // Before any command is added: each one inherits it.
  usageErrorsExit2(program);
  registerServe(program);
  registerMigrate(program);
  registerTenant(program);
  registerKey(program);
  registerQuota(program);
  registerProfile(program);
  registerScreen(program);
  registerAudit(program);
  registerBackup(program);
  registerWebhook(program);
  registerLogin(program);
  registerLists(program);
  return program;
}

/** Parses argv and runs; returns the exit code. Known errors print one clear line, never a stack. */
export async function runCli(argv: string[]): Promise<number> {
  const program = buildProgram();
  try {
    await program.parseAsync(argv);
    return typeof process.exitCode === "number" ? process.exitCode : 0;
  } catch (error) {
    if (error instanceof CommanderError) return error.exitCode;
    if (error instanceof ServiceError || error instanceof ConfigError || error instanceof MigrationError || error instanceof MasterKeyError) {
      process.stderr.write(`error: ${error.message}\n`);
      // Several issues one per line, to read them apart; a single one only when the message does not already say it.
      const issues = error instanceof ServiceError ? (error.fieldIssues ?? []) : [];
      const [only] = issues;
      // Said already when the line names the field and holds its message, however it words them ("webhookUrl is refused: <reason>").
      const saidAlready = issues.length === 1 && only !== undefined && error.message.includes(only.field) && error.message.includes(only.message);
      if (!saidAlready) for (const issue of issues) process.stderr.write(`  - ${issue.field}: ${issue.message}\n`);
      printNotesAfterError();
      return exitCodeOf(error);
    }
    if (error instanceof Error) {
      // Failures of the work itself (an unreachable server or identity provider, refused client
      // credentials, a backup that cannot be written) read as one line and exit 1; DEBUG=aml shows
      // the stack for unexpected ones.
      process.stderr.write(`error: ${error.message}\n`);
      if (process.env.DEBUG?.includes("aml") && error.stack) process.stderr.write(`${error.stack}\n`);
      printNotesAfterError();
      return 1;
    }
    throw error;
  }
}

function printNotesAfterError(): void {
  for (const note of takeNotesAfterError()) process.stderr.write(`${note}\n`);
}

/**
 * A refused input (a 4xx ServiceError, an invalid flag, setting or config file) is a mistake in the
 * command: exit 2. A failure of the work itself (a 5xx, a master.key or migration problem, another
 * list import holding the lock) exits 1.
 */
function exitCodeOf(error: ServiceError | ConfigError | MigrationError | MasterKeyError): number {
  if (error instanceof ConfigError) return USAGE_EXIT;
  if (error instanceof ImportLockError) return 1;
  return error instanceof ServiceError && error.status < 500 ? USAGE_EXIT : 1;
}
