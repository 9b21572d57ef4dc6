import { readFileSync } from "node:fs";
import type { WatchlistEntity } from "../../src/watchlists/entity";
import { join } from "node:path";
import { NAMEDATA_DIR } from "./shared-data";

/**
 * Benchmark queries: half are listed names with a light perturbation (swapped token order, one
 * dropped letter), half unlisted names from the yente synthetic negatives (many scripts), so both
 * the "hit" and the far more common "clear" paths are timed.
 */
function lcg(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 4294967296;
  };
}

let negativesCache: string[] | null = null;

/** The yente synthetic unlisted names, read once (call before measuring memory so they are not counted). */
export function unlistedNames(): string[] {
  negativesCache ??= readFileSync(join(NAMEDATA_DIR, "matching_pairs/yente_candidate_generation/negatives_global.csv"), "utf8")
    .split(/\r?\n/)
    .slice(1)
    .map((l) => l.split(",")[0] ?? "")
    .filter(Boolean);
  return negativesCache;
}

export function benchQueries(entities: readonly WatchlistEntity[], count: number, seed = 7): string[] {
  const rand = lcg(seed);
  const negatives = unlistedNames();
  const out: string[] = [];
  while (out.length < count) {
    if (out.length % 2 === 0) {
      const e = entities[Math.floor(rand() * entities.length)]!;
      const tokens = e.primaryName.replace(",", "").split(/\s+/).filter(Boolean);
      if (tokens.length > 1 && rand() < 0.5) tokens.push(tokens.shift()!);
      const k = Math.floor(rand() * tokens.length);
      const t = tokens[k]!;
      if (t.length > 5) tokens[k] = t.slice(0, 3) + t.slice(4);
      out.push(tokens.join(" "));
    } else out.push(negatives[Math.floor(rand() * negatives.length)]!);
  }
  return out;
}
