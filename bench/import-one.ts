/**
 * One import measurement, in THIS process (bench/import.ts runs one of these per measurement so
 * peak RSS belongs to a single import): reads the given files or folders the way `aml lists import`
 * does (readListPath), imports them into a fresh temporary data folder with importListFiles, and
 * prints one JSON line:
 *
 *   {label, sources, files, bytes, entities, names, ms, readMs, parseMs, recordMs, peakRssMB, dbMB}
 *
 *   bun run bench/import-one.ts [--label TEXT] [--whole] <file-or-folder>...
 *
 * --whole parses PEP files whole, as imports did before large PEP files were streamed (for comparison).
 *
 * ms = read files + parse + record (wall clock). parseMs ends when the importer hands over the
 * parsed lists; recordMs is recordImport's own duration (entity rows, diff, version, snapshot).
 * When PEP files are streamed (parse and insert interleaved), parseMs covers only the other files.
 * peakRssMB is this process's high-water RSS: VmHWM from /proc/self/status. On Linux,
 * process.resourceUsage().maxRSS is inherited across fork and exec, so a child started by a big
 * parent reports the parent's peak; it is kept as maxRssMB for comparison.
 * BENCH_KEEP=1 keeps the data folder and prints its path on stderr.
 */
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openDb } from "../src/storage/db";
import { importListFiles, readListPath } from "../src/watchlists/import";
import { peakRssMiB } from "./lib/stats";

export interface ImportMeasurement {
  label: string;
  sources: string[];
  formats: string[];
  files: number;
  bytes: number;
  entities: number;
  names: number;
  ms: number;
  readMs: number;
  parseMs: number;
  recordMs: number;
  peakRssMB: number;
  maxRssMB: number;
  dbMB: number;
  warnings: number;
}

function fileSize(path: string): number {
  try {
    return statSync(path).size;
  } catch {
    return 0;
  }
}

export async function measureImport(paths: readonly string[], label = paths.join(" "), whole = false): Promise<ImportMeasurement> {
  const dataDir = mkdtempSync(join(tmpdir(), "aml-bench-import-"));
  // A bench stopped by its time limit or Ctrl-C still removes its data folder (up to 2 GB).
  const stop = (signal: NodeJS.Signals) => {
    rmSync(dataDir, { recursive: true, force: true });
    process.exit(signal === "SIGINT" ? 130 : 143);
  };
  process.once("SIGTERM", stop);
  process.once("SIGINT", stop);
  try {
    const db = openDb(dataDir);
    let measurement: ImportMeasurement;
    try {
      const started = performance.now();
      const files = paths.flatMap((p) => readListPath(p));
      const read = performance.now();
      let parsed = read;
      const report = await importListFiles(db, files, { actor: { type: "system", id: "bench" } }, {
        onParsed: () => {
          parsed = performance.now();
        },
        ...(whole ? { streamPepBytes: Number.POSITIVE_INFINITY } : {}),
      });
      const ended = performance.now();
      const versions = report.results.map((r) => r.version);
      measurement = {
        label,
        sources: versions.map((v) => v.source),
        formats: versions.map((v) => v.format),
        files: files.length,
        // Sizes from disk: touching `bytes` would read a large file that the import streamed.
        bytes: files.reduce((n, f) => n + (f.path ? fileSize(f.path) : f.bytes.byteLength), 0),
        entities: versions.reduce((n, v) => n + v.entityCount, 0),
        names: versions.reduce((n, v) => n + v.nameCount, 0),
        ms: ended - started,
        readMs: read - started,
        parseMs: parsed - read,
        recordMs: report.durationMs,
        peakRssMB: peakRssMiB(),
        maxRssMB: process.resourceUsage().maxRSS / 1024,
        dbMB: 0,
        warnings: versions.reduce((n, v) => n + v.warnings.length, 0),
      };
    } finally {
      db.close();
    }
    measurement.dbMB = (fileSize(join(dataDir, "aml.db")) + fileSize(join(dataDir, "aml.db-wal"))) / (1024 * 1024);
    return measurement;
  } finally {
    process.off("SIGTERM", stop);
    process.off("SIGINT", stop);
    if (process.env.BENCH_KEEP) console.error(`data folder kept: ${dataDir}`);
    else rmSync(dataDir, { recursive: true, force: true });
  }
}

if (import.meta.main) {
  const args = process.argv.slice(2);
  let label: string | undefined;
  let whole = false;
  const paths: string[] = [];
  for (let i = 0; i < args.length; i++) {
    if (args[i] === "--label") label = args[++i];
    else if (args[i] === "--whole") whole = true;
    else paths.push(args[i] ?? "");
  }
  if (paths.length === 0) {
    console.error("usage: bun run bench/import-one.ts [--label TEXT] [--whole] <file-or-folder>...");
    process.exit(2);
  }
  const result = await measureImport(paths, label, whole);
  process.stdout.write(`${JSON.stringify(result)}\n`);
}
