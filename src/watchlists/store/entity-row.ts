import type { WatchlistEntity } from "../entity";
import type { EntityRow } from "./types";

/**
 * The stored form of an entity. The content hash is over exactly the stored JSON, so a version's
 * diff against the previous one (changed or unchanged) compares what a reader would get back.
 */
export function entityRow(entity: WatchlistEntity): EntityRow {
  const data = JSON.stringify(entity);
  return {
    externalId: entity.externalId,
    contentHash: new Bun.CryptoHasher("sha256").update(data).digest("hex"),
    data,
    nameCount: entity.names.length,
  };
}
