import type { Config } from "@/config";
import type { AppContext } from "@/context";
import { systemClock } from "@/lib/clock";
import { createLogger, type Logger } from "@/lib/logger";
import { createSecretBox, loadMasterKey } from "@/lib/secret-box";
import { openDb } from "@/storage/db";

/** Opens the data folder (creating and migrating it if new) and assembles the shared context. */
export function openContext(config: Config, options: { log?: Logger } = {}): AppContext {
  const db = openDb(config.dataDir);
  return {
    db,
    config,
    clock: systemClock,
    log: options.log ?? createLogger(config.logLevel),
    secrets: createSecretBox(loadMasterKey(config.dataDir)),
  };
}
