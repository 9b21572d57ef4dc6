import type { Command } from "commander";
import { loadConfig } from "@/config";
import { openDb } from "@/storage/db";
import { migrate } from "@/storage/migrate";
import { globalOptions } from "../context";

export function registerMigrate(program: Command): void {
  program
    .command("migrate")
    .description("Create or upgrade the data folder's database, then exit")
    .action((_options: unknown, command: Command) => {
      const globals = globalOptions(command);
      const config = loadConfig({ configFile: globals.config, flags: { dataDir: globals.dataDir } });
      const db = openDb(config.dataDir, { migrate: false });
      try {
        const result = migrate(db.sqlite);
        const summary = { database: db.path, applied: result.applied, alreadyApplied: result.alreadyApplied };
        console.log(globals.json ? JSON.stringify(summary, null, 2) : `${db.path}: applied ${result.applied.length} migration(s), ${result.alreadyApplied} already applied`);
      } finally {
        db.close();
      }
    });
}
