import { buildIndex } from "../../src/matching/index";
import { exactKey, normaliseName } from "../../src/matching/normalise";
import { resolveOptions } from "../../src/matching/options-resolve";
import { screen } from "../../src/matching/screen";
import type { WatchlistEntity } from "../../src/watchlists/entity";
import { newEntity } from "../../src/watchlists/importers/common/build";
import type { LoadedLists } from "../../bench/lib/real-lists";
import { type BaselineScanner, entitiesAbove, foldFullName } from "../../bench/lib/baseline-scan";
import { type ListedNames, peerNegatives } from "./dataset";
import type { EngineRunner } from "./engine-runner";
import { jaroWinkler } from "../../src/matching/similarity";
import { type PeerRow, readCrossScriptPairs, readPeerCsv } from "./peer-data";
import { per1000, pct, table } from "./report";

const CTX = { sourcePublishedAt: {}, now: new Date("2026-03-01T00:00:00Z") };

function yearOf(dob: string): number | null {
  const m = /^(\d{4})/.exec(dob);
  return m ? Number(m[1]) : null;
}

/** A peer positive is found when a matched UN entry has the same birth year (or, undated, the same name). */
function isHit(entity: WatchlistEntity, row: PeerRow): boolean {
  const year = yearOf(row.dob);
  if (year === null) return entity.names.some((n) => exactKey(normaliseName(n.name)) === exactKey(normaliseName(row.fullName)));
  return entity.birth.some((b) => {
    const from = b.yearFrom ?? Number(b.date.slice(0, 4));
    const to = b.yearTo ?? Number(b.date.slice(0, 4));
    return year >= from && year <= to;
  });
}

function unPositives(loaded: LoadedLists, engine: EngineRunner, baseline: BaselineScanner, baselineEqual: number): void {
  const rows = readPeerCsv("yente_candidate_generation/positives_un_untreated.csv");
  const options = resolveOptions({}, { lists: ["UN"], resultCap: 500 });
  const byKey = new Map(loaded.entities.map((e) => [`${e.source}:${e.externalId}`, e]));
  const unFilter = (e: number) => baseline.entities[e]!.source === "UN";
  let engineHits = 0;
  let engineHitsNameOnly = 0;
  let baseHits = 0;
  let baseHitsFixed = 0;
  for (const row of rows) {
    const withFacts = screen(engine.index, { fullName: row.fullName, dateOfBirth: row.dob, nationality: row.nationality }, options, CTX);
    const nameOnly = screen(engine.index, { fullName: row.fullName }, options, CTX);
    const found = (ms: typeof withFacts.matches) => ms.some((m) => isHit(byKey.get(`${m.source}:${m.externalId}`)!, row));
    if (found([...withFacts.matches, ...withFacts.suppressedMatches])) engineHits++;
    if (found([...nameOnly.matches, ...nameOnly.suppressedMatches])) engineHitsNameOnly++;
    const hitBy = (t: number) => [...entitiesAbove(baseline, row.fullName, t, unFilter)].some((e) => isHit(baseline.entities[e]!, row));
    if (hitBy(baselineEqual)) baseHits++;
    if (hitBy(0.85)) baseHitsFixed++;
  }
  console.log(`\n## Peer positives: yente positives_un_untreated.csv against UN (${rows.length} queries; hit = a matched UN entry with the same birth year)`);
  console.log(
    table(
      ["system", "recall"],
      [
        ["engine@default, name + DOB + nationality", pct(engineHits / rows.length)],
        ["engine@default, name only", pct(engineHitsNameOnly / rows.length)],
        [`baseline@equal-alerts (${baselineEqual.toFixed(3)})`, pct(baseHits / rows.length)],
        ["baseline@0.85", pct(baseHitsFixed / rows.length)],
      ],
    ),
  );
}

function globalNegatives(engine: EngineRunner, listed: ListedNames, globalRows: readonly PeerRow[]): void {
  const withFacts = peerNegatives(globalRows, "global", listed, true);
  let alertsFacts = 0;
  let alertsNames = 0;
  const t = performance.now();
  for (const n of withFacts) {
    if (engine.run({ fullName: n.query, dateOfBirth: n.dob ?? null, nationality: n.nationality ?? null }, false).outcome.isMatch) alertsFacts++;
  }
  const ms = performance.now() - t;
  for (const n of withFacts) if (engine.run({ fullName: n.query }, false).outcome.isMatch) alertsNames++;
  console.log(`\n## Peer negatives: yente negatives_global.csv, all ${withFacts.length} rows against all lists (engine at default)`);
  console.log(
    table(
      ["input", "false alerts per 1,000", "false-positive rate"],
      [
        ["name + DOB + nationality", per1000(alertsFacts / withFacts.length), pct(alertsFacts / withFacts.length)],
        ["name only", per1000(alertsNames / withFacts.length), pct(alertsNames / withFacts.length)],
      ],
    ),
  );
  console.log(`engine throughput on this set: ${((withFacts.length / ms) * 1000).toFixed(0)} names/s on one core`);
}

function crossScript(): void {
  const pairs = readCrossScriptPairs();
  const entities: WatchlistEntity[] = pairs.map((p, i) => ({
    ...newEntity({ source: "UN", externalId: `X${i}`, entityType: "person", verifyUrl: "" }),
    primaryName: p.expected,
    names: [{ name: p.expected, kind: "primary", quality: "strong", originalScript: false }],
  }));
  const index = buildIndex(entities);
  const options = resolveOptions({}, { threshold: 0.5 });
  let pass = 0;
  let basePass = 0;
  const rows = pairs.map((p, i) => {
    const m = screen(index, { fullName: p.query }, options, CTX).matches.find((x) => x.externalId === `X${i}`);
    const score = m?.score ?? 0;
    const base = jaroWinkler(foldFullName(p.query), foldFullName(p.expected));
    if (score >= p.minScore) pass++;
    if (base >= p.minScore) basePass++;
    return [`${p.query} → ${p.expected}`, p.minScore, score, base];
  });
  console.log(`\n## Cross-script pairs (watchman, ${pairs.length}): engine passes ${pass}, baseline passes ${basePass} (score ≥ the pair's minimum)`);
  console.log(table(["pair", "min", "engine", "baseline"], rows));
}

export async function runPeerSections(
  loaded: LoadedLists,
  engine: EngineRunner,
  baseline: BaselineScanner,
  baselineEqual: number,
  listed: ListedNames,
  globalRows: readonly PeerRow[],
): Promise<void> {
  unPositives(loaded, engine, baseline, baselineEqual);
  globalNegatives(engine, listed, globalRows);
  crossScript();
}
