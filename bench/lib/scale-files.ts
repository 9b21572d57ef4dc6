import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseListFiles } from "../../src/watchlists/parse-files";
import { writePeps } from "./scale-peps";
import { type WrittenSource, writeEuXml, writeOfacCsvSet, writeUkConListCsv, writeUnXml } from "./scale-sanctions";
import { loadNameTokens, type NameTokens } from "./scale-tokens";

/**
 * A PRODUCTION-SCALE set of list files in the official formats, GENERATED for benchmarks: the real
 * files we have are smaller than production (OFAC 2023, no EU file, Wikidata samples only), so
 * this writes OFAC SDN legacy CSV (sdn/add/alt), EU FSF XML 1.1, OFSI ConList CSV, UN consolidated
 * XML and Wikidata-derived PEPs as FollowTheMoney line-JSON (optionally also as Wikidata entity-JSON
 * dump lines) with names recombined from the real lists' name tokens (see scale-tokens.ts).
 *
 * Deterministic: the same counts and seed give the same bytes. The set is written to a temp folder
 * (never into the repository) and cached under $BENCH_SCALE_DIR or /tmp/aml-bench-scale, keyed by the
 * generator version, the counts and the seed, so repeated runs do not regenerate it.
 */
export const GENERATOR_VERSION = 1;

export type ScaleSource = "OFAC" | "EU" | "UK" | "UN" | "WIKIDATA-FTM" | "WIKIDATA-JSON";

export interface ScaleCounts {
  ofac: number;
  eu: number;
  uk: number;
  un: number;
  /** Wikidata-derived persons (PEPs and their relatives). */
  peps: number;
  /** Also write the persons as Wikidata entity-JSON dump lines. */
  wikidataDump: boolean;
}

/** Production sizes (README "Scale"): OFAC SDN ~18,000, EU ~5,500, UK ~5,300, UN ~1,000, PEPs 0.5–1.5 M. */
export const PRODUCTION_COUNTS: ScaleCounts = { ofac: 18_000, eu: 5_500, uk: 5_300, un: 1_000, peps: 1_000_000, wikidataDump: false };

/** Small set for checking that every generated format parses, and for BENCH_QUICK runs. */
export const SAMPLE_COUNTS: ScaleCounts = { ofac: 400, eu: 200, uk: 200, un: 150, peps: 5_000, wikidataDump: true };

export interface ScaleSourceInfo {
  /** Folder of this source's files (one import each). */
  dir: string;
  files: string[];
  entities: number;
  bytes: number;
  lines?: Record<string, number>;
}

export interface ScaleManifest {
  generator: string;
  version: number;
  seed: number;
  counts: ScaleCounts;
  sources: Partial<Record<ScaleSource, ScaleSourceInfo>>;
  tokenSources: string[];
  generatedMs: number;
  note: string;
}

export interface ScaleSet {
  dir: string;
  manifest: ScaleManifest;
  /** False when the set came from the cache. */
  generated: boolean;
}

export const SCALE_NOTE =
  "GENERATED production-scale data in the official formats; names recombined from the real lists' name tokens (not real records)";

const SUBDIRS: Record<ScaleSource, string> = {
  OFAC: "ofac",
  EU: "eu",
  UK: "uk",
  UN: "un",
  "WIKIDATA-FTM": "wikidata-ftm",
  "WIKIDATA-JSON": "wikidata-json",
};

export function scaleRoot(): string {
  return process.env.BENCH_SCALE_DIR ?? join(tmpdir(), "aml-bench-scale");
}

function cacheKey(counts: ScaleCounts, seed: number): string {
  return createHash("sha256").update(JSON.stringify({ counts, seed, version: GENERATOR_VERSION })).digest("hex").slice(0, 12);
}

let tokensOnce: Promise<NameTokens> | undefined;

function write(dir: string, counts: ScaleCounts, seed: number, tokens: NameTokens, log: (line: string) => void): ScaleManifest["sources"] {
  const sources: ScaleManifest["sources"] = {};
  const run = (source: ScaleSource, fn: (sub: string) => WrittenSource) => {
    const sub = join(dir, SUBDIRS[source]);
    mkdirSync(sub, { recursive: true });
    const t0 = performance.now();
    const out = fn(sub);
    sources[source] = { dir: SUBDIRS[source], files: out.files, entities: out.entities, bytes: out.bytes, ...(out.lines ? { lines: out.lines } : {}) };
    log(`  generated ${source}: ${out.entities.toLocaleString("en")} entities, ${(out.bytes / 1e6).toFixed(1)} MB in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  };
  if (counts.ofac > 0) run("OFAC", (sub) => writeOfacCsvSet(sub, counts.ofac, tokens, seed));
  if (counts.eu > 0) run("EU", (sub) => writeEuXml(sub, counts.eu, tokens, seed));
  if (counts.uk > 0) run("UK", (sub) => writeUkConListCsv(sub, counts.uk, tokens, seed));
  if (counts.un > 0) run("UN", (sub) => writeUnXml(sub, counts.un, tokens, seed));
  if (counts.peps > 0) {
    const t0 = performance.now();
    const ftmDir = join(dir, SUBDIRS["WIKIDATA-FTM"]);
    const dumpDir = join(dir, SUBDIRS["WIKIDATA-JSON"]);
    mkdirSync(ftmDir, { recursive: true });
    // Both PEP files are written in one pass (same persons); the dump goes to its own folder afterwards.
    const peps = writePeps(ftmDir, { persons: counts.peps, wikidataDump: counts.wikidataDump }, tokens, seed);
    sources["WIKIDATA-FTM"] = { dir: SUBDIRS["WIKIDATA-FTM"], ...peps.ftm };
    if (peps.wikidata) {
      mkdirSync(dumpDir, { recursive: true });
      for (const f of peps.wikidata.files) renameSync(join(ftmDir, f), join(dumpDir, f));
      sources["WIKIDATA-JSON"] = { dir: SUBDIRS["WIKIDATA-JSON"], ...peps.wikidata };
    }
    const mb = ((peps.ftm.bytes + (peps.wikidata?.bytes ?? 0)) / 1e6).toFixed(0);
    log(`  generated WIKIDATA PEPs: ${counts.peps.toLocaleString("en")} persons, ${mb} MB in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  }
  return sources;
}

function setDir(counts: ScaleCounts, seed: number): string {
  return join(scaleRoot(), `v${GENERATOR_VERSION}-${cacheKey(counts, seed)}`);
}

export const DEFAULT_SEED = 20250801;

/** The cached set for these counts, if it was generated before. */
export function cachedScaleSet(counts: ScaleCounts, seed = DEFAULT_SEED): ScaleSet | undefined {
  const dir = setDir(counts, seed);
  const manifestPath = join(dir, "manifest.json");
  if (!existsSync(manifestPath)) return undefined;
  return { dir, manifest: JSON.parse(readFileSync(manifestPath, "utf8")) as ScaleManifest, generated: false };
}

/**
 * The cached set, else generates it in a child process (reading the real lists for their tokens
 * takes ~0.7 GB that the caller then does not keep), logging the generator's progress.
 */
export async function scaleSetInChild(counts: ScaleCounts, log: (line: string) => void, seed = DEFAULT_SEED): Promise<ScaleSet> {
  const cached = cachedScaleSet(counts, seed);
  if (cached) return cached;
  const child = Bun.spawn([process.execPath, "run", import.meta.path, JSON.stringify({ counts, seed })], { stdout: "pipe", stderr: "inherit" });
  const [out, code] = await Promise.all([new Response(child.stdout).text(), child.exited]);
  for (const line of out.trim().split("\n").slice(0, -1)) log(line);
  const set = cachedScaleSet(counts, seed);
  if (code !== 0 || !set) throw new Error(`scale-set generator exited with ${code}`);
  return { ...set, generated: true };
}

/**
 * Returns the cached set for these counts, generating it first when absent. Generation writes to a
 * private folder and renames it into place, so concurrent runs never see a half-written set.
 */
export async function ensureScaleSet(
  counts: ScaleCounts,
  options: { seed?: number; log?: (line: string) => void } = {},
): Promise<ScaleSet> {
  const seed = options.seed ?? DEFAULT_SEED;
  const log = options.log ?? (() => undefined);
  const root = scaleRoot();
  const dir = setDir(counts, seed);
  const manifestPath = join(dir, "manifest.json");
  const cached = cachedScaleSet(counts, seed);
  if (cached) return cached;
  mkdirSync(root, { recursive: true });
  const partial = `${dir}.partial-${process.pid}`;
  rmSync(partial, { recursive: true, force: true });
  mkdirSync(partial, { recursive: true });
  const t0 = performance.now();
  try {
    log(`generating ${SCALE_NOTE} into ${dir}`);
    tokensOnce ??= loadNameTokens();
    const tokens = await tokensOnce;
    const sources = write(partial, counts, seed, tokens, log);
    const manifest: ScaleManifest = {
      generator: "bench/lib/scale-files.ts",
      version: GENERATOR_VERSION,
      seed,
      counts,
      sources,
      tokenSources: tokens.sources,
      generatedMs: Math.round(performance.now() - t0),
      note: SCALE_NOTE,
    };
    writeFileSync(join(partial, "manifest.json"), `${JSON.stringify(manifest, null, 2)}\n`);
    if (existsSync(manifestPath)) rmSync(partial, { recursive: true, force: true });
    else {
      rmSync(dir, { recursive: true, force: true });
      renameSync(partial, dir);
    }
    return { dir, manifest, generated: true };
  } catch (err) {
    rmSync(partial, { recursive: true, force: true });
    throw err;
  }
}

/** Absolute paths of one source's generated files. */
export function scaleFiles(set: ScaleSet, source: ScaleSource): string[] {
  const info = set.manifest.sources[source];
  return info ? info.files.map((f) => join(set.dir, info.dir, f)) : [];
}

/** Removes cached sets of older generator versions (they can be large). */
export function pruneOldScaleSets(): string[] {
  const root = scaleRoot();
  if (!existsSync(root)) return [];
  const removed: string[] = [];
  for (const name of readdirSync(root)) {
    const m = /^v(\d+)-/.exec(name);
    if (m && Number(m[1]) !== GENERATOR_VERSION) {
      rmSync(join(root, name), { recursive: true, force: true });
      removed.push(name);
    }
  }
  return removed;
}

export interface SampleCheck {
  source: ScaleSource;
  format: string;
  expected: number;
  parsed: number;
  names: number;
  warnings: number;
}

/**
 * Parses every source of a (small) generated set with the project's parseListFiles and checks that
 * each yields exactly one list of the expected source with the expected number of entities.
 */
export async function verifyScaleSet(set: ScaleSet): Promise<SampleCheck[]> {
  const checks: SampleCheck[] = [];
  for (const source of Object.keys(set.manifest.sources) as ScaleSource[]) {
    const info = set.manifest.sources[source];
    if (!info) continue;
    const files = scaleFiles(set, source).map((path) => ({ name: path.slice(path.lastIndexOf("/") + 1), bytes: new Uint8Array(readFileSync(path)) }));
    const lists = await parseListFiles(files);
    const wanted = source.startsWith("WIKIDATA") ? "WIKIDATA" : source;
    const list = lists[0];
    if (lists.length !== 1 || !list || list.source !== wanted) {
      throw new Error(`generated ${source} files parsed as ${lists.map((l) => `${l.source}/${l.format}`).join(", ") || "nothing"}`);
    }
    const check: SampleCheck = {
      source,
      format: list.format,
      expected: info.entities,
      parsed: list.entities.length,
      names: list.entities.reduce((n, e) => n + e.names.length, 0),
      warnings: list.warnings.length,
    };
    if (check.parsed !== check.expected) {
      throw new Error(`generated ${source}: expected ${check.expected} entities, parseListFiles found ${check.parsed} (${list.warnings.slice(0, 3).join(" | ")})`);
    }
    checks.push(check);
  }
  return checks;
}

/** `bun run bench/lib/scale-files.ts '{"counts":{...},"seed":N}'`: generates (or finds) a set and prints its folder last. */
if (import.meta.main) {
  const arg = JSON.parse(process.argv[2] ?? "{}") as { counts?: Partial<ScaleCounts>; seed?: number };
  const set = await ensureScaleSet({ ...PRODUCTION_COUNTS, ...arg.counts }, { seed: arg.seed ?? DEFAULT_SEED, log: (line) => console.log(line) });
  console.log(set.dir);
}
