import type { WatchlistEntity } from "../../src/watchlists/entity";
import { streamPeps } from "./synthetic-peps";

/** The production-scale set: the real sanctions lists, then `scale` GENERATED PEPs, as one stream. */
export function* productionSet(real: readonly WatchlistEntity[], scale: number): Generator<WatchlistEntity> {
  for (const entity of real) if (entity.source !== "WIKIDATA") yield entity;
  yield* streamPeps(real, scale);
}

/** Entities passed through as a stream (as the server feeds them from SQLite), every 50th kept in `sample` for queries. */
export function* sampled(entities: Iterable<WatchlistEntity>, sample: WatchlistEntity[]): Generator<WatchlistEntity> {
  let i = 0;
  for (const entity of entities) {
    if (i++ % 50 === 0) sample.push(entity);
    yield entity;
  }
}
