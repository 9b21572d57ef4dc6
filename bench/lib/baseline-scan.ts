import anyAscii from "any-ascii";
import { jaroWinkler } from "../../src/matching/similarity";
import type { WatchlistEntity } from "../../src/watchlists/entity";
import { naturalOrder } from "./natural-order";

/**
 * The baseline: what government list-search tools do. Each query is compared as one string with
 * Jaro-Winkler against every listed name (as published and, for "LAST, First" names, in natural
 * order), after lowercasing, transliteration to ASCII and punctuation folding. No index: a scan.
 */
export function foldFullName(name: string): string {
  return anyAscii(name.normalize("NFKC"))
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, " ")
    .trim();
}

const HIST = 27;

function histogram(s: string, out: Uint8Array, offset: number): void {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    const k = c >= 97 && c <= 122 ? c - 97 : 26;
    if (out[offset + k]! < 255) out[offset + k]!++;
  }
}

export class BaselineScanner {
  readonly names: string[] = [];
  readonly entityOf: number[] = [];
  private readonly hist: Uint8Array;
  readonly byEntity = new Map<string, number>();

  constructor(readonly entities: readonly WatchlistEntity[]) {
    entities.forEach((e, i) => {
      this.byEntity.set(`${e.source}:${e.externalId}`, i);
      const seen = new Set<string>();
      for (const n of e.names) {
        for (const form of [n.name, naturalOrder(n.name)]) {
          const folded = foldFullName(form);
          if (!folded || seen.has(folded)) continue;
          seen.add(folded);
          this.names.push(folded);
          this.entityOf.push(i);
        }
      }
    });
    this.hist = new Uint8Array(this.names.length * HIST);
    for (let i = 0; i < this.names.length; i++) histogram(this.names[i]!, this.hist, i * HIST);
  }

  /** Best score of one entity (for positives: the target's score). */
  entityScore(query: string, entityKey: string): number {
    const e = this.byEntity.get(entityKey);
    if (e === undefined) return 0;
    const q = foldFullName(query);
    let best = 0;
    for (let i = 0; i < this.names.length; i++) if (this.entityOf[i] === e) best = Math.max(best, jaroWinkler(q, this.names[i]!));
    return best;
  }

  /**
   * Highest score over all names, skipping names whose letter counts alone cap them below the
   * best so far (an exact bound on Jaro's matching characters, so the maximum is unchanged).
   */
  maxScore(query: string, entityFilter?: (entity: number) => boolean): { score: number; entity: number } {
    const q = foldFullName(query);
    const qh = new Uint8Array(HIST);
    histogram(q, qh, 0);
    let best = 0;
    let bestEntity = -1;
    for (let i = 0; i < this.names.length; i++) {
      if (entityFilter && !entityFilter(this.entityOf[i]!)) continue;
      const name = this.names[i]!;
      let m = 0;
      const off = i * HIST;
      for (let k = 0; k < HIST; k++) m += Math.min(qh[k]!, this.hist[off + k]!);
      const jaroBound = (m / q.length + m / name.length + 1) / 3;
      if (jaroBound + 0.4 * (1 - jaroBound) <= best) continue;
      const s = jaroWinkler(q, name);
      if (s > best) {
        best = s;
        bestEntity = this.entityOf[i]!;
      }
    }
    return { score: best, entity: bestEntity };
  }
}

/** Entities with a name scoring at least `threshold` (the baseline's alert list for one query). */
export function entitiesAbove(scanner: BaselineScanner, query: string, threshold: number, entityFilter: (e: number) => boolean): Set<number> {
  const q = foldFullName(query);
  const out = new Set<number>();
  for (let i = 0; i < scanner.names.length; i++) {
    const e = scanner.entityOf[i]!;
    if (!out.has(e) && entityFilter(e) && jaroWinkler(q, scanner.names[i]!) >= threshold) out.add(e);
  }
  return out;
}
