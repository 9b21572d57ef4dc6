import type { Csr } from "./growable";

/**
 * Reorders every posting list by the listed name's total rarity weight (lightest first, then by
 * name id). Retrieval can then stop reading a list where names become too heavy to match: a name
 * whose unmatched tokens outweigh what the query could ever cover scores below the threshold
 * whatever else it shares, and at production scale most of the 10^5 names under "mohammed" carry
 * a rarer surname a one-token query cannot cover. See weightCut in retrieve.ts.
 */
export function orderPostingsByWeight(lists: readonly Csr[], weightSum: Float32Array): void {
  // One order for every posting structure (names by their tokens, names by their noise tokens):
  // sorting a million names by weight is the costly part.
  const order = namesByWeight(weightSum);
  const rank = new Uint32Array(order.length);
  for (let i = 0; i < order.length; i++) rank[order[i]!] = i;
  for (const { start, values } of lists) {
    for (let p = 0; p < values.length; p++) values[p] = rank[values[p]!]!;
    const rows = start.length - 1;
    // Numeric typed-array sorts need no comparator: each row sorted by rank, then mapped back.
    for (let t = 0; t < rows; t++) if (start[t + 1]! - start[t]! > 1) values.subarray(start[t]!, start[t + 1]!).sort();
    for (let p = 0; p < values.length; p++) values[p] = order[values[p]!]!;
  }
}

const ID_BITS = 22;

/** Name ids sorted by (weightSum, id). */
function namesByWeight(weightSum: Float32Array): Uint32Array {
  const n = weightSum.length;
  if (n < 2 ** ID_BITS) {
    // The bits of a non-negative float32 order like the numbers, so (bits << 22 | id) fits a
    // float64's 53-bit mantissa exactly and one native numeric sort orders names by weight, then id.
    const bits = new Uint32Array(weightSum.buffer, weightSum.byteOffset, n);
    const keys = new Float64Array(n);
    for (let i = 0; i < n; i++) keys[i] = (weightSum[i]! > 0 ? bits[i]! : 0) * 2 ** ID_BITS + i;
    keys.sort();
    const out = new Uint32Array(n);
    for (let i = 0; i < n; i++) out[i] = keys[i]! % 2 ** ID_BITS;
    return out;
  }
  return Uint32Array.from(Array.from({ length: n }, (_, i) => i).sort((a, b) => weightSum[a]! - weightSum[b]! || a - b));
}
