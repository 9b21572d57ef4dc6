/**
 * Diagnostics for the latency tail (not part of make bench): builds the production-scale index,
 * runs the bench queries five times with the expansion cache cleared each round, keeps each
 * query's fastest run and prints the 30 slowest with their plan / retrieve / score times.
 *   bun run bench/slow-queries.ts [generated PEPs, default 1000000]
 */
import { buildIndex } from "../src/matching/index";
import { planQuery } from "../src/matching/query";
import { retrieve } from "../src/matching/retrieve";
import { scoreName } from "../src/matching/score";
import type { WatchlistEntity } from "../src/watchlists/entity";
import { benchQueries } from "./lib/queries";
import { percentile } from "./lib/stats";
import { loadRealLists } from "./lib/real-lists";
import { productionSet, sampled } from "./lib/production-set";

const loaded = await loadRealLists();
const sample: WatchlistEntity[] = [];
const index = buildIndex(sampled(productionSet(loaded.entities, Number(process.argv[2] ?? 1_000_000)), sample));
const queries = benchQueries(sample, 2300, 17);
const expand = { trigramFloor: 0.3, phonetic: true, nicknames: true, exactOnly: false };
function run(q: string) {
  const t0 = performance.now();
  const plan = planQuery(index, q, expand);
  const t1 = performance.now();
  const c = retrieve(index, plan, { threshold: 0.82, candidateLimit: 200, sourceMask: 31 });
  const t2 = performance.now();
  for (const n of c) scoreName(index, plan, n, false);
  const t3 = performance.now();
  return { q, ms: t3 - t0, plan: t1 - t0, ret: t2 - t1, score: t3 - t2, cands: c.length };
}
for (const q of queries.slice(2000)) run(q);
const best = new Map<string, ReturnType<typeof run>>();
for (let k = 0; k < 5; k++) {
  index.scratch.expansionCache.clear();
  for (const q of queries.slice(0, 2000)) {
    const r = run(q);
    const prev = best.get(q);
    if (!prev || r.ms < prev.ms) best.set(q, r);
  }
}
const rows = [...best.values()];
rows.sort((a, b) => b.ms - a.ms);
for (const r of rows.slice(0, 30)) console.log(r.ms.toFixed(2), "plan", r.plan.toFixed(2), "ret", r.ret.toFixed(2), "score", r.score.toFixed(2), r.cands, r.q);
const sum = (k: "plan" | "ret" | "score") => rows.slice(0, 20).reduce((s, r) => s + r[k], 0).toFixed(1);
console.log("top20 sums: plan", sum("plan"), "ret", sum("ret"), "score", sum("score"));
const sorted = rows.map((r) => r.ms).sort((a, b) => a - b);
// Repeated queries share one row, so there may be fewer rows than queries.
console.log("p50", percentile(sorted, 50).toFixed(3), "p99", percentile(sorted, 99).toFixed(3));
