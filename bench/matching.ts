/**
 * Matching benchmark (make bench): index build time, memory and single-name latency of the engine
 * beside the baseline (a plain Jaro-Winkler full-name scan), first on the real lists, then at
 * production scale with 1,000,000 GENERATED PEPs plus the real sanctions lists.
 * Options: --scale=N (generated PEPs, default 1000000), --queries=N (default 3000).
 * No assertions: this prints numbers.
 */
import { buildIndex, type MatchIndex } from "../src/matching/index";
import { resolveOptions } from "../src/matching/options-resolve";
import { screen } from "../src/matching/screen";
import type { WatchlistEntity } from "../src/watchlists/entity";
import { BaselineScanner } from "./lib/baseline-scan";
import { benchQueries, unlistedNames } from "./lib/queries";
import { loadRealLists } from "./lib/real-lists";
import { type LatencySummary, peakRssMiB, ratio, rssMiB, timeEach } from "./lib/stats";
import { productionSet, sampled } from "./lib/production-set";

const args = new Map(process.argv.slice(2).map((a) => a.replace(/^--/, "").split("=") as [string, string | undefined]));
const SCALE = Number(args.get("scale") ?? 1_000_000);
const QUERIES = Number(args.get("queries") ?? 3000);
const OPTIONS = resolveOptions({}, {});
const CTX = { sourcePublishedAt: {}, now: new Date("2026-03-01T00:00:00Z") };

function indexBytes(index: MatchIndex): number {
  const { names, vocab, entityTable: e } = index;
  const arrays = [names.entity, names.source, names.ordinal, names.weak, names.tokenStart, names.tokens, names.tokenFlags, names.weightSum];
  const more = [vocab.idf, vocab.abjad, vocab.grams.start, vocab.grams.values, vocab.gramCount, vocab.postings.start, vocab.postings.values];
  const ent = [e.source, e.type, e.deceased, e.dobStart, e.dob, e.natStart, e.nat];
  return [...arrays, ...more, ...ent].reduce((sum, a) => sum + a.byteLength, 0);
}

interface Row {
  system: string;
  buildMs: number;
  rssMiB: number;
  latency: LatencySummary;
  note: string;
}

/**
 * `entities` is called twice: once streamed into the engine's index (so its RSS is the index's, not
 * that of a million entity objects), once as an array for the baseline scanner, which needs every
 * name string in memory.
 */
function measure(label: string, entities: () => Iterable<WatchlistEntity>, baselineQueries: number): void {
  unlistedNames();
  // What producing the entities costs on its own, so the build figure can be read without it.
  const producing = performance.now();
  for (const _ of entities()) {
    // drain
  }
  const produceMs = performance.now() - producing;
  const rss0 = rssMiB();
  const sample: WatchlistEntity[] = [];
  const index = buildIndex(sampled(entities(), sample));
  const rssBuilt = rssMiB();
  const queries = benchQueries(sample, QUERIES + 300, 17);
  timeEach(queries.slice(QUERIES), (q) => screen(index, { fullName: q }, OPTIONS, CTX));
  const engine = timeEach(queries.slice(0, QUERIES), (q) => screen(index, { fullName: q }, OPTIONS, CTX));
  const rssEngine = rssMiB();
  const t = performance.now();
  const scanner = new BaselineScanner(Array.from(entities()));
  const baseBuild = performance.now() - t;
  const rssBase = rssMiB();
  const base = timeEach(queries.slice(0, baselineQueries), (q) => scanner.maxScore(q));
  const rows: Row[] = [
    {
      system: "engine",
      buildMs: index.buildMs,
      rssMiB: rssEngine - rss0,
      latency: engine,
      note: `build includes ${produceMs.toFixed(0)} ms producing the entities; ${(indexBytes(index) / 1048576).toFixed(0)} MiB typed arrays + ${(index.cards.byteLength / 1048576).toFixed(0)} MiB match cards; ${index.names.count} names, ${index.vocab.size} tokens`,
    },
    { system: "baseline JW scan", buildMs: baseBuild, rssMiB: rssBase - rssEngine, latency: base, note: `${scanner.names.length} name strings (+ the entities); ${baselineQueries} queries` },
  ];
  console.log(
    `\n## ${label}: ${index.entityCount} entities\nprocess RSS: ${rss0.toFixed(0)} MiB before, ${rssBuilt.toFixed(0)} MiB after the engine index ` +
      `(built from a stream of entities), ${rssEngine.toFixed(0)} MiB after its queries, ${rssBase.toFixed(0)} MiB after the baseline's entities and scan table; ` +
      `peak ${peakRssMiB().toFixed(0)} MiB`,
  );
  console.log("system            build ms   +RSS MiB   p50 ms    p99 ms   names/s   queries  note");
  for (const r of rows) {
    const l = r.latency;
    console.log(
      `${r.system.padEnd(16)} ${r.buildMs.toFixed(0).padStart(9)} ${r.rssMiB.toFixed(0).padStart(10)} ${l.p50.toFixed(3).padStart(8)} ${l.p99.toFixed(3).padStart(9)} ${l.perSecond.toFixed(0).padStart(9)} ${String(l.n).padStart(9)}  ${r.note}`,
    );
  }
  console.log(
    `engine vs baseline: p50 ${ratio(base.p50, engine.p50)} faster, p99 ${ratio(base.p99, engine.p99)} faster, throughput ${ratio(engine.perSecond, base.perSecond)}`,
  );
}

const loaded = await loadRealLists();
console.log("# Matching benchmark (one core, single-name screens at the default profile)");
console.log(`queries: half listed names lightly perturbed, half unlisted yente synthetic names; ${QUERIES} timed after 300 warm-up`);
measure("Real lists (OFAC, UN, UK, Wikidata samples)", () => loaded.entities, 300);

console.log(
  `\nGENERATED for scale: ${SCALE} PEPs with names recombined from the real lists' person-name tokens ` +
    "(frequency-weighted, so common Arabic and Russian tokens are as common as on the sanctions lists), generated while the index is built",
);
measure(`Production scale: ${SCALE} generated PEPs + real sanctions lists`, () => productionSet(loaded.entities, SCALE), 20);
console.log("\nbaseline at production scale is sampled on 20 queries (a full scan takes seconds per name).");
