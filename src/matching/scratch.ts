import type { Expansion } from "./expand";
import { GrowableU32 } from "./growable";
import type { TokenForm } from "./token-match";

/**
 * Work buffers for retrieval, sized to the index and reused across searches so a query allocates
 * nothing proportional to the list size. Per found name, one packed record of RECORD words:
 *   [stamp, best, accQuery, accCandidate]
 * (best: the query credit, weight × similarity, of the slot that last credited the name)
 * (the stamp is read through `ints` at the record's first word, the rest through `floats`)
 * at the name's place, its position in `touched` (the order in which this search found it), with
 * `places` mapping name → place. Records in found order are dense: a search that finds 40,000 of
 * a million names works on 640 KB of records that stay in the L2 cache and are read in order when
 * the candidates are selected, where records by name id were spread over 16 MB and cost a memory
 * read each (at a million names the misses, not the arithmetic, are the cost). The matched-token
 * count sits beside them in `matched`, also by place, and the estimate is written only for names
 * that pass the gates. A record is written whole when its name is found, so it needs no clearing;
 * the stamp (slot number + 1) says which slot of this search last credited it. Screening is
 * synchronous, so one set per index is enough; the index data itself stays immutable.
 *
 * Whether a name was found at all in this search is also kept in `marks`, one byte per name
 * (1 MB per million names, so it stays in the L2 cache): most postings a search walks belong to
 * names it will not keep ("mohammed" has 10^5 postings, "Mohammed Nasrallah" finds a few dozen),
 * and a cache-resident byte answers "not found" where the 16-byte record costs a memory read. A
 * found name's record is first written, never read, which the CPU does without waiting.
 */
export const RECORD = 4;
export const R_BEST = 1;
export const R_ACC_QUERY = 2;
export const R_ACC_CANDIDATE = 3;

export interface SearchBuffers {
  /** Integer view of the found names' records, by place (stamp). */
  readonly ints: Uint32Array;
  /** Float view of the same memory (best, accumulators). */
  readonly floats: Float32Array;
  /** By place: substantive query tokens matched. */
  readonly matched: Uint16Array;
  /** Per name: equal to the search's mark when the current search has found the name. */
  readonly marks: Uint8Array;
  /** Per name: its place (position in `touched`), valid while its mark is current. */
  readonly places: Uint32Array;
  /** Per name: the vocabulary token through which a slot last credited it (see retrieve: twins). */
  readonly via: Uint32Array;
  /** Retrieval estimate of kept[k], at k: read back in order, not per name. */
  readonly estimates: Float32Array;
  readonly gramCounts: Uint16Array;
  /** Per vocabulary token: similarity to the slot being applied (0 outside it). */
  readonly tokenSims: Float32Array;
  readonly touched: GrowableU32;
  /** Found names still in reach before deferred slots are applied. */
  readonly survivors: GrowableU32;
  readonly kept: GrowableU32;
  readonly gramTouched: GrowableU32;
}

/** A query token's comparison form and expansions: pure functions of (index, token, options). */
export interface CachedToken {
  readonly form: TokenForm;
  readonly expansions: readonly Expansion[];
  /** Noise postings of the expansions (QueryToken.noisePostings). */
  readonly noisePostings: number;
}

export interface SearchScratch {
  buffers: SearchBuffers | null;
  /**
   * Recently seen query tokens. The form is kept with the expansions: computing it is fifteen
   * regular-expression passes (looseForm, about 2 µs a token), paid on every hit otherwise.
   */
  readonly expansionCache: Map<string, CachedToken>;
  /** Folded spellings of candidate token pairs read as one token, by the pair (first id × vocabulary size + second id; align.ts). */
  readonly mergedLoose: Map<number, string>;
  mark: number;
  readonly nameCount: number;
  readonly vocabSize: number;
}

export function createScratch(nameCount: number, vocabSize: number): SearchScratch {
  return { buffers: null, expansionCache: new Map(), mergedLoose: new Map(), mark: 0, nameCount, vocabSize };
}

/** Allocates on first use so that indexes built only for inspection cost no search memory. */
export function buffersOf(scratch: SearchScratch): SearchBuffers {
  if (!scratch.buffers) {
    const memory = new ArrayBuffer(scratch.nameCount * RECORD * 4);
    scratch.buffers = {
      ints: new Uint32Array(memory),
      floats: new Float32Array(memory),
      matched: new Uint16Array(scratch.nameCount),
      marks: new Uint8Array(scratch.nameCount),
      places: new Uint32Array(scratch.nameCount),
      via: new Uint32Array(scratch.nameCount),
      estimates: new Float32Array(scratch.nameCount),
      gramCounts: new Uint16Array(scratch.vocabSize),
      tokenSims: new Float32Array(scratch.vocabSize),
      touched: new GrowableU32(1024),
      survivors: new GrowableU32(1024),
      kept: new GrowableU32(1024),
      gramTouched: new GrowableU32(1024),
    };
  }
  return scratch.buffers;
}

/** The next search's mark (1–255); on wrap-around all marks are cleared (1 MB per million names, every 255 searches). */
export function nextMark(scratch: SearchScratch, buffers: SearchBuffers): number {
  if (scratch.mark >= 255) {
    buffers.marks.fill(0);
    scratch.mark = 0;
  }
  scratch.mark += 1;
  return scratch.mark;
}
