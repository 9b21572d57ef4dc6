import type { Config } from "@/config";
import type { Clock } from "@/lib/clock";
import type { Logger } from "@/lib/logger";
import type { SecretBox } from "@/lib/secret-box";
import type { Db } from "@/storage/db";

/** Who performs an action: recorded on every audit entry. */
export type Actor =
  | { type: "api_key"; id: string }
  | { type: "oidc"; id: string }
  | { type: "cli"; id: string }
  | { type: "system"; id: string };

/** Long-lived dependencies shared by the server, the CLI and background work. */
export interface AppContext {
  db: Db;
  config: Config;
  clock: Clock;
  log: Logger;
  secrets: SecretBox;
}

/** Per-call facts that travel with a domain verb. */
export interface CallMeta {
  actor: Actor;
  correlationId?: string;
}
