import type { Config } from "@/config";
import type { AppContext } from "@/context";
import { systemClock } from "@/lib/clock";
import { createLogger, type Logger } from "@/lib/logger";
import { createSecretBox, loadMasterKey } from "@/lib/secret-box";
import { openDb } from "@/storage/db";

/**
 * Opens the data folder (creating it if new) and assembles the shared context. Migrates unless
 * told not to: the server migrates after it starts listening, so /readyz can report it.
 */
export function openContext(config: Config, options: { log?: Logger; migrate?: boolean } = {}): AppContext {
  const db = openDb(config.dataDir, { migrate: options.migrate !== false, durability: config.durability });
  return {
    db,
    config,
    clock: systemClock,
    log: options.log ?? createLogger(config.logLevel),
    secrets: createSecretBox(loadMasterKey(config.dataDir)),
  };
}
