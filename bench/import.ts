/**
 * Import benchmark: how long `aml lists import` takes and how much memory it needs, per source and
 * for everything at once, on the real list files in ../shared/watchlists and on a GENERATED
 * production-scale set (OFAC 18,000 / EU 5,500 / UK 5,300 / UN 1,000 / 1,000,000 Wikidata PEPs in
 * the official formats, names recombined from the real lists' name tokens: bench/lib/scale-files.ts).
 *
 * Every measurement is a separate `bun run bench/import-one.ts` process with a fresh data folder,
 * so the peak RSS reported is that one import's. Targets (production-scale set imported together):
 * under 60 s and under 1.5 GiB peak RSS. Numbers are printed, with PASS/MISS; a failed measurement
 * (crash, wrong entity count) makes the exit code non-zero, a missed target does not (BENCH_STRICT=1
 * makes it).
 *
 *   bun run bench/import.ts
 *
 * BENCH_QUICK=1            small generated sample instead of production scale, fewer real-file rows
 * BENCH_PEPS=1500000       PEP count of the production-scale set (default 1,000,000)
 * BENCH_WIKIDATA_DUMP=1    also generate and import the PEPs as Wikidata entity-JSON dump lines (~2.5 GB)
 * BENCH_SCALE_DIR=/path    where generated sets are cached (default /tmp/aml-bench-scale)
 * BENCH_JSON=/path.json    also write the measurements as JSON
 */
import { loadavg } from "node:os";
import { join } from "node:path";
import { openDb } from "../src/storage/db";
import { WATCHLISTS_DIR } from "./lib/shared-data";
import { importListFiles, readListPath } from "../src/watchlists/import";
import type { ImportMeasurement } from "./import-one";
import {
  PRODUCTION_COUNTS,
  pruneOldScaleSets,
  SAMPLE_COUNTS,
  SCALE_NOTE,
  type ScaleCounts,
  type ScaleSet,
  type ScaleSource,
  scaleFiles,
  scaleSetInChild,
  verifyScaleSet,
} from "./lib/scale-files";

const ROOT = WATCHLISTS_DIR;
const TARGET = { seconds: 60, rssMiB: 1536 };
const QUICK = process.env.BENCH_QUICK === "1";

interface Plan {
  section: string;
  label: string;
  paths: string[];
  /** Entities the import must report (generated sets only). */
  expect?: number;
  /** The row the targets apply to. */
  target?: boolean;
}

interface Row {
  plan: Plan;
  result?: ImportMeasurement;
  error?: string;
}

const real = (...rel: string[]) => rel.map((r) => join(ROOT, r));
const OFAC_CSV = ["sdn", "add", "alt", "sdn_comments", "cons_prim", "cons_add", "cons_alt", "cons_comments"].map((n) => `ofac/${n}.csv`);
const FTM = "wikidata/opensanctions_ftm_sa_wiki_peps/entities.ftm.json";
const WBGET = "wikidata/wikidata_wbgetentities_json";

function realPlans(): Plan[] {
  const section = `real files (${ROOT})`;
  const all: Plan = { section, label: "all real sources together", paths: real(...OFAC_CSV, "un/consolidated.xml", "uk/ConList.xlsx", FTM, WBGET) };
  if (QUICK) return [all];
  return [
    { section, label: "OFAC legacy CSV (SDN + non-SDN sets)", paths: real(...OFAC_CSV) },
    { section, label: "OFAC XML (sdnList, non-SDN)", paths: real("ofac/consolidated.xml") },
    { section, label: "OFAC advanced XML (non-SDN)", paths: real("ofac/cons_advanced.xml") },
    { section, label: "UK OFSI ConList XLSX", paths: real("uk/ConList.xlsx") },
    { section, label: "UK FCDO summary ODS", paths: real("uk/FCDO_SL_2025-08-11_summary.ods") },
    { section, label: "UN consolidated XML", paths: real("un/consolidated.xml") },
    { section, label: "Wikidata PEPs, FtM line-JSON", paths: real(FTM) },
    { section, label: "Wikidata wbgetentities JSON", paths: real(WBGET) },
    all,
  ];
}

const SCALE_LABELS: Record<ScaleSource, string> = {
  OFAC: "OFAC SDN legacy CSV set",
  EU: "EU FSF XML 1.1",
  UK: "UK OFSI ConList CSV",
  UN: "UN consolidated XML",
  "WIKIDATA-FTM": "Wikidata PEPs, FtM line-JSON",
  "WIKIDATA-JSON": "Wikidata PEPs, entity-JSON dump",
};

function scalePlans(set: ScaleSet, scale: string): Plan[] {
  const section = `${scale} — ${SCALE_NOTE}`;
  const plans: Plan[] = [];
  const sources = Object.keys(set.manifest.sources) as ScaleSource[];
  for (const source of sources) {
    const info = set.manifest.sources[source];
    if (!info) continue;
    plans.push({ section, label: `${SCALE_LABELS[source]} ×${info.entities.toLocaleString("en")}`, paths: [join(set.dir, info.dir)], expect: info.entities });
  }
  const together = sources.filter((s) => s !== "WIKIDATA-JSON");
  plans.push({
    section,
    label: `${scale} set together (${together.join(" + ")})`,
    paths: together.map((s) => join(set.dir, set.manifest.sources[s]?.dir ?? "")),
    expect: together.reduce((n, s) => n + (set.manifest.sources[s]?.entities ?? 0), 0),
    target: true,
  });
  return plans;
}

async function measure(plan: Plan): Promise<Row> {
  const child = Bun.spawn([process.execPath, "run", join(import.meta.dir, "import-one.ts"), "--label", plan.label, ...plan.paths], {
    stdout: "pipe",
    stderr: "pipe",
  });
  const [out, err, code] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
  const last = out.trim().split("\n").pop() ?? "";
  if (code !== 0 || !last.startsWith("{")) {
    return { plan, error: `exit ${code}: ${(err.trim().split("\n").slice(-3).join(" | ") || "no output").slice(0, 300)}` };
  }
  const result = JSON.parse(last) as ImportMeasurement;
  if (plan.expect !== undefined && result.entities !== plan.expect) {
    return { plan, result, error: `imported ${result.entities} entities, the generator wrote ${plan.expect}` };
  }
  return { plan, result };
}

const fmt = (n: number, digits = 0) => n.toLocaleString("en", { minimumFractionDigits: digits, maximumFractionDigits: digits });

function printRow(row: Row): void {
  const r = row.result;
  if (!r || row.error) {
    console.log(`  ${row.plan.label.padEnd(58)} FAILED: ${row.error}`);
    if (!r) return;
  }
  const s = r.ms / 1000;
  console.log(
    `  ${row.plan.label.padEnd(58)}${fmt(r.entities).padStart(11)}${fmt(r.names).padStart(11)}${fmt(s, 2).padStart(9)}` +
      `${fmt(r.entities / s).padStart(10)}${fmt(r.peakRssMB).padStart(9)}${fmt(r.parseMs / 1000, 1).padStart(9)}${fmt(r.recordMs / 1000, 1).padStart(10)}${fmt(r.bytes / 1e6, 1).padStart(9)}`,
  );
}

function header(section: string): void {
  console.log(`\n${section}`);
  console.log(`  ${"measurement".padEnd(58)}${"entities".padStart(11)}${"names".padStart(11)}${"seconds".padStart(9)}${"ent/s".padStart(10)}${"RSS MiB".padStart(9)}${"parse s".padStart(9)}${"record s".padStart(10)}${"MB in".padStart(9)}`);
}

/**
 * The generated formats parse (parseListFiles, every source of the sample), and streaming a PEP file
 * from disk stores what parsing it whole stores: for FtM the same rows and content hashes; for the
 * Wikidata dump the same counts, dates and diff (a dump small enough to be one JSON document is read
 * as a document when parsed whole, which also names relatives from human labels, so rows differ).
 */
async function verifySample(sample: ScaleSet): Promise<string[]> {
  const lines: string[] = [];
  for (const c of await verifyScaleSet(sample)) {
    lines.push(`${c.source} (${c.format}): ${fmt(c.parsed)} of ${fmt(c.expected)} entities, ${fmt(c.names)} names, ${c.warnings} warnings`);
  }
  for (const source of ["WIKIDATA-FTM", "WIKIDATA-JSON"] as const) {
    const paths = scaleFiles(sample, source);
    if (paths.length === 0) continue;
    const fingerprints: string[] = [];
    for (const streamPepBytes of [Number.POSITIVE_INFINITY, 1]) {
      const db = openDb(":memory:");
      try {
        const report = await importListFiles(db, paths.flatMap((p) => readListPath(p)), { actor: { type: "system", id: "bench" } }, { streamPepBytes });
        const v = report.results[0]?.version;
        if (!v) throw new Error(`${source}: nothing imported`);
        const rows = db.sqlite
          .query<{ h: string }, [string]>("SELECT external_id || ':' || content_hash AS h FROM list_entities WHERE version_id = ? ORDER BY ordinal")
          .all(v.id);
        const content = source === "WIKIDATA-FTM" ? Bun.hash(rows.map((r) => r.h).join("\n")).toString() : "";
        fingerprints.push(JSON.stringify([v.entityCount, v.nameCount, v.publishedAt, v.sha256, v.diff, content]));
      } finally {
        db.close();
      }
    }
    if (fingerprints[0] !== fingerprints[1]) throw new Error(`${source}: streamed import differs from the whole-file import:\n  ${fingerprints.join("\n  ")}`);
    const same = source === "WIKIDATA-FTM" ? "rows, content hashes, counts, publication date" : "counts, publication date, diff";
    lines.push(`${source}: streamed from disk = parsed whole (${same})`);
  }
  return lines;
}

function productionCounts(): ScaleCounts {
  const peps = Number(process.env.BENCH_PEPS ?? PRODUCTION_COUNTS.peps);
  return { ...PRODUCTION_COUNTS, peps, wikidataDump: process.env.BENCH_WIKIDATA_DUMP === "1" };
}

async function main(): Promise<number> {
  const started = performance.now();
  console.log(`Import benchmark${QUICK ? " (BENCH_QUICK: sample scale)" : ""} — bun ${Bun.version}, load average at start ${loadavg().map((l) => l.toFixed(2)).join(" ")}`);
  console.log("Each row is one import in its own process into a fresh data folder: seconds = read + parse + record; RSS = that process's peak (VmHWM).");
  console.log("parse s = files parsed whole before anything is written; large PEP files are streamed (parsed on a worker thread while their rows are written), so their parse time is inside record s.");
  const log = (line: string) => console.log(line);
  for (const name of pruneOldScaleSets()) console.log(`removed cached set of an older generator version: ${name}`);

  const rows: Row[] = [];
  let failures = 0;
  const run = async (plans: Plan[]) => {
    let section = "";
    for (const plan of plans) {
      if (plan.section !== section) {
        section = plan.section;
        header(section);
      }
      const row = await measure(plan);
      if (row.error) failures++;
      rows.push(row);
      printRow(row);
    }
  };

  await run(realPlans());

  const sample = await scaleSetInChild(SAMPLE_COUNTS, log);
  console.log(`\ngenerated-format check on a sample (${sample.dir}):`);
  try {
    for (const line of await verifySample(sample)) console.log(`  ${line}`);
  } catch (err) {
    failures++;
    console.log(`  FAILED: ${err instanceof Error ? err.message : String(err)}`);
  }

  const counts = QUICK ? SAMPLE_COUNTS : productionCounts();
  const set = QUICK ? sample : await scaleSetInChild(counts, log);
  console.log(`\n${QUICK ? "sample" : "production-scale"} set: ${set.dir} (${set.generated ? `generated in ${(set.manifest.generatedMs / 1000).toFixed(1)} s` : "cached"}; seed ${set.manifest.seed}, generator v${set.manifest.version})`);
  await run(scalePlans(set, QUICK ? "sample-scale" : "production-scale"));

  const target = rows.find((r) => r.plan.target);
  console.log(`\ntargets (production-scale set imported together): < ${TARGET.seconds} s and peak RSS < ${TARGET.rssMiB} MiB (1.5 GiB)`);
  let missed = false;
  if (QUICK) console.log("  not judged: BENCH_QUICK imports a small sample, not the production-scale set");
  else if (!target?.result || target.error) {
    console.log(`  MISS: the production-scale import failed (${target?.error ?? "not run"})`);
    missed = true;
  } else {
    const s = target.result.ms / 1000;
    const rss = target.result.peakRssMB;
    const timeOk = s < TARGET.seconds;
    const rssOk = rss < TARGET.rssMiB;
    missed = !timeOk || !rssOk;
    console.log(`  time ${fmt(s, 1)} s: ${timeOk ? "PASS" : "MISS"}`);
    console.log(`  peak RSS ${fmt(rss)} MiB: ${rssOk ? "PASS" : "MISS"}`);
  }
  console.log(`\nload average at end ${loadavg().map((l) => l.toFixed(2)).join(" ")} (2 = both cores of this machine busy); bench took ${fmt((performance.now() - started) / 1000, 0)} s`);

  if (process.env.BENCH_JSON) {
    const out = { quick: QUICK, target: TARGET, scaleSet: set.manifest, rows: rows.map((r) => ({ section: r.plan.section, label: r.plan.label, ...r.result, error: r.error })) };
    await Bun.write(process.env.BENCH_JSON, `${JSON.stringify(out, null, 2)}\n`);
  }
  if (failures > 0) {
    console.log(`${failures} measurement(s) failed`);
    return 1;
  }
  return missed && process.env.BENCH_STRICT === "1" ? 1 : 0;
}

if (import.meta.main) process.exit(await main());
