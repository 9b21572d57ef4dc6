/**
 * Matching evaluation (make eval): a labelled set built from the real lists, deterministic, scored
 * by the engine at its default profile and by a plain Jaro-Winkler full-name scan (the baseline),
 * with results per variant type, per negative kind, at equal alert rates, on both the train split
 * (where the defaults were tuned) and the held-out split. Then the peer data sets.
 * Options: --quick (smaller sets), --baseline-global=N (peer negatives scanned by the baseline).
 */
import { loadRealLists, WATCHLIST_ROOT } from "../../bench/lib/real-lists";
import { BaselineScanner } from "../../bench/lib/baseline-scan";
import type { RiskProfileOverrides } from "../../src/matching/options";
import { buildHardNegatives, buildPositives, ListedNames, type Negative, peerNegatives, type Positive } from "./dataset";
import { CURVE_FLOOR, EngineRunner } from "./engine-runner";
import { curvePoints, rate, thresholdAtAlertRate } from "./metrics";
import { readPeerCsv } from "./peer-data";
import { runPeerSections } from "./peer-sections";
import { per1000, pct, table } from "./report";
import { Rng, type Split } from "./rng";

const args = new Map(process.argv.slice(2).map((a) => a.replace(/^--/, "").split("=") as [string, string | undefined]));
const QUICK = args.has("quick");
const PER_VARIANT = QUICK ? 120 : 400;
const PER_KIND = QUICK ? 300 : 1000;
const BASELINE_GLOBAL = Number(args.get("baseline-global") ?? (QUICK ? 500 : 3000));
const BASELINE_FIXED = 0.85;

const started = performance.now();
const loaded = await loadRealLists();
console.log(`# Matching eval\nlists (parsed in place from ${WATCHLIST_ROOT} by src/watchlists parseListFiles):`);
console.log(loaded.lists.map((l) => `  ${l.source} ${l.format}: ${l.entities.length} entities, published ${l.publishedAt}`).join("\n"));
const engine = new EngineRunner(loaded.entities, loaded.publishedAt);
const baseline = new BaselineScanner(loaded.entities);
console.log(`index: ${engine.index.names.count} names, ${engine.index.vocab.size} distinct tokens, built in ${engine.index.buildMs.toFixed(0)} ms; baseline: ${baseline.names.length} name strings`);

const rng = new Rng(20240917);
const listed = new ListedNames(loaded.entities);
const globalRows = readPeerCsv("yente_candidate_generation/negatives_global.csv");
const positives = buildPositives(loaded.entities, rng, PER_VARIANT);
const sampledGlobal = peerNegatives(rng.shuffle(globalRows).slice(0, BASELINE_GLOBAL), "global_synthetic", listed, false);
const negatives: Negative[] = [
  ...buildHardNegatives(loaded.entities, globalRows, listed, rng, PER_KIND),
  ...peerNegatives(readPeerCsv("yente_candidate_generation/positives_us_congress_untreated.csv"), "us_congress", listed, false),
  ...sampledGlobal,
];
console.log(`labelled set: ${positives.length} listed-name variants, ${negatives.length} unlisted names (seed 20240917)\n`);

interface Scored<T> {
  readonly item: T;
  readonly engineDefault: boolean;
  readonly engineCurve: number;
  readonly baseline: number;
}

const scoredPos: Scored<Positive>[] = positives.map((p) => {
  const key = `${p.source}:${p.externalId}`;
  return {
    item: p,
    engineDefault: engine.targetScore({ fullName: p.query }, key, false) > 0,
    engineCurve: engine.targetScore({ fullName: p.query }, key, true),
    baseline: baseline.entityScore(p.query, key),
  };
});
const tBase = performance.now();
const scoredNeg: Scored<Negative>[] = negatives.map((n) => ({
  item: n,
  engineDefault: engine.maxScore({ fullName: n.query }, false) > 0,
  engineCurve: engine.maxScore({ fullName: n.query }, true),
  baseline: baseline.maxScore(n.query).score,
}));
const baselineScanMs = (performance.now() - tBase) / Math.max(1, negatives.length);

// The baseline's operating point: the threshold where it raises as many alerts on the training
// negatives as the engine does at its default profile ("equal alert rate").
const trainNeg = scoredNeg.filter((s) => s.item.split === "train");
const engineTrainRate = trainNeg.filter((s) => s.engineDefault).length / trainNeg.length;
const baselineEqual = thresholdAtAlertRate(
  trainNeg.map((s) => s.baseline),
  engineTrainRate * 1000,
);
console.log(`engine default threshold ${engine.defaults.threshold}; baseline threshold at equal alert rate ${baselineEqual.toFixed(3)}, fixed ${BASELINE_FIXED}`);

for (const split of ["train", "heldout"] as Split[]) {
  const pos = scoredPos.filter((s) => s.item.split === split);
  const neg = scoredNeg.filter((s) => s.item.split === split);
  const groups = [...new Set(pos.map((s) => s.item.variant))];
  const rows = groups.map((g) => {
    const ps = pos.filter((s) => s.item.variant === g);
    const b = ps.map((s) => s.baseline);
    return [g, ps.length, pct(ps.filter((s) => s.engineDefault).length / ps.length), pct(rate(b, baselineEqual)), pct(rate(b, BASELINE_FIXED))];
  });
  const all = pos.map((s) => s.baseline);
  rows.push(["ALL", pos.length, pct(pos.filter((s) => s.engineDefault).length / pos.length), pct(rate(all, baselineEqual)), pct(rate(all, BASELINE_FIXED))]);
  console.log(`\n## Recall by variant type: ${split} split`);
  console.log(table(["variant", "n", "engine@default", "baseline@equal-alerts", `baseline@${BASELINE_FIXED}`], rows));

  const kinds = [...new Set(neg.map((s) => s.item.kind))];
  const negRows = kinds.map((k) => {
    const ns = neg.filter((s) => s.item.kind === k);
    const b = ns.map((s) => s.baseline);
    return [k, ns.length, per1000(ns.filter((s) => s.engineDefault).length / ns.length), per1000(rate(b, baselineEqual)), per1000(rate(b, BASELINE_FIXED))];
  });
  const nb = neg.map((s) => s.baseline);
  const engineAlerts = neg.filter((s) => s.engineDefault).length;
  negRows.push(["ALL", neg.length, per1000(engineAlerts / neg.length), per1000(rate(nb, baselineEqual)), per1000(rate(nb, BASELINE_FIXED))]);
  console.log(`\n## False alerts per 1,000 unlisted names: ${split} split`);
  console.log(table(["kind", "n", "engine@default", "baseline@equal-alerts", `baseline@${BASELINE_FIXED}`], negRows));

  const hits = pos.filter((s) => s.engineDefault).length;
  const bHits = rate(all, baselineEqual) * pos.length;
  const bAlerts = rate(nb, baselineEqual) * neg.length;
  console.log(
    `\nengine@default: recall ${pct(hits / pos.length)}, false-positive rate ${pct(engineAlerts / neg.length)}, precision ${pct(hits / Math.max(1, hits + engineAlerts))}` +
      ` | baseline@equal-alerts: recall ${pct(bHits / pos.length)}, precision ${pct(bHits / Math.max(1, bHits + bAlerts))}`,
  );
  const e = curvePoints(
    pos.map((s) => s.engineCurve),
    neg.map((s) => s.engineCurve),
  );
  const b = curvePoints(all, nb);
  console.log(`\n## Equal alert rates: ${split} split (engine curve from threshold ${CURVE_FLOOR} up)`);
  console.log(
    table(
      ["system", "recall@1‰ alerts", "recall@10‰ alerts", "alerts‰@95% recall", "alerts‰@99% recall"],
      [
        ["engine", pct(e.recallAt1), pct(e.recallAt10), per1000(e.alertsAt95 / 1000), per1000(e.alertsAt99 / 1000)],
        ["baseline (JW scan)", pct(b.recallAt1), pct(b.recallAt10), per1000(b.alertsAt95 / 1000), per1000(b.alertsAt99 / 1000)],
      ],
    ),
  );
}

// How the default threshold was chosen: the lowest threshold whose false-positive rate on the
// TRAINING negatives is at most 1%; the held-out columns show what that choice does elsewhere.
console.log("\n## Engine threshold sweep (recall / false-positive rate; the default is chosen on train)");
const sweep = [0.78, 0.79, 0.8, 0.81, 0.82, 0.83, 0.84, 0.85, 0.86].map((t) => {
  const cells: string[] = [t.toFixed(2)];
  for (const split of ["train", "heldout"] as Split[]) {
    const p = scoredPos.filter((s) => s.item.split === split).map((s) => s.engineCurve);
    const n = scoredNeg.filter((s) => s.item.split === split).map((s) => s.engineCurve);
    cells.push(pct(rate(p, t)), pct(rate(n, t)));
  }
  return cells;
});
console.log(table(["threshold", "train recall", "train FPR", "held-out recall", "held-out FPR"], sweep));

// What each equivalence feature buys and costs, at the default threshold, per split.
console.log("\n## Ablations at the default threshold (recall / false-positive rate)");
const ablations: [string, RiskProfileOverrides][] = [
  ["default", {}],
  ["nicknames off", { nicknames: false }],
  ["phonetic off", { phonetic: false }],
  ["both off", { nicknames: false, phonetic: false }],
];
const ablationRows = ablations.map(([label, overrides]) => {
  const cells: string[] = [label];
  for (const split of ["train", "heldout"] as Split[]) {
    const pos = positives.filter((p) => p.split === split);
    const neg = negatives.filter((n) => n.split === split);
    const hit = pos.filter((p) => {
      const r = engine.runWith({ fullName: p.query }, overrides);
      return [...r.matches, ...r.suppressedMatches].some((m) => m.source === p.source && m.externalId === p.externalId);
    }).length;
    const alerts = neg.filter((n) => engine.runWith({ fullName: n.query }, overrides).outcome.isMatch).length;
    cells.push(pct(hit / pos.length), pct(alerts / neg.length));
  }
  return cells;
});
console.log(table(["profile", "train recall", "train FPR", "held-out recall", "held-out FPR"], ablationRows));

await runPeerSections(loaded, engine, baseline, baselineEqual, listed, globalRows);
console.log(`\nbaseline scan: ${baselineScanMs.toFixed(2)} ms per unlisted name; eval took ${((performance.now() - started) / 1000).toFixed(0)} s`);
