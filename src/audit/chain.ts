import { canonicalJson } from "@/lib/canonical-json";
import { sha256Hex } from "@/lib/hash";

/** The first entry of every chain links to this. */
export const GENESIS_HASH = "0".repeat(64);
/** Chain of appliance-wide events that belong to no tenant (list imports, start-up). */
export const SYSTEM_CHAIN = "system";

export interface ChainedFields {
  id: string;
  chain: string;
  seq: number;
  at: string;
  action: string;
  targetType: string;
  targetId: string | null;
  actorType: string;
  actorId: string;
  correlationId: string | null;
  details: unknown;
}

/** hash = sha256(prev_hash ‖ "\n" ‖ canonical JSON of the entry). Pure, shared by append and verify. */
export function entryHash(prevHash: string, entry: ChainedFields): string {
  return sha256Hex(`${prevHash}\n${canonicalJson(entry)}`);
}
