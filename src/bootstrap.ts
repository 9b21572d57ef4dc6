import type { Config } from "@/config";
import type { AppContext } from "@/context";
import { systemClock } from "@/lib/clock";
import { createLogger, type Logger } from "@/lib/logger";
import { openDb } from "@/storage/db";
import { openMasterKey } from "@/storage/master-key";

export interface OpenContextOptions {
  log?: Logger;
  migrate?: boolean;
  /** false: open an existing aml.db only, never create the folder or the database (the CLI's everyday commands). */
  create?: boolean;
}

/**
 * Opens the data folder (creating it if new, unless told not to) and assembles the shared context.
 * Migrates unless told not to: the server migrates after it starts listening, so /readyz can report
 * it, and then pairs the master key with the database (bindKeyCheck).
 */
export function openContext(config: Config, options: OpenContextOptions = {}): AppContext {
  const db = openDb(config.dataDir, { migrate: options.migrate !== false, durability: config.durability, create: options.create !== false });
  try {
    return {
      db,
      config,
      clock: systemClock,
      log: options.log ?? createLogger(config.logLevel),
      secrets: openMasterKey(db, config.dataDir),
    };
  } catch (error) {
    db.close();
    throw error;
  }
}
