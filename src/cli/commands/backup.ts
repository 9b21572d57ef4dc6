import type { Command } from "commander";
import { backupDataFolder } from "@/storage/backup";
import { privateModeWarnings } from "@/storage/db";
import { withContext } from "../context";
import { printJson, printRecord } from "../output";
import { requireNewFolder } from "../paths";

export function registerBackup(program: Command): void {
  program
    .command("backup <folder>")
    .description("Write a consistent online copy of the data folder (database + master key) to a new folder")
    .action((folder: string, _options: unknown, command: Command) => {
      requireNewFolder(folder);
      return withContext(command, (ctx, json) => {
        const result = backupDataFolder(ctx.db, ctx.config.dataDir, folder);
        if (json) printJson(result);
        else printRecord({ ...result });
        // An empty folder the operator made keeps its mode (a backup agent may need it): said, not changed.
        for (const warning of privateModeWarnings(result.folder)) process.stderr.write(`warning: ${warning}\n`);
      });
    });
}
