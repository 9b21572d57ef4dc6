/**
 * `make bench`: runs the benchmarks that exist, one after another, each as its own process (so one
 * bench's memory and JIT state never colour another's, and a crash is contained). Each section is
 * headed; a failed bench is reported and the runner goes on, exiting non-zero at the end.
 *
 *   bun run bench/run.ts                 full benches (production scale: several minutes)
 *   BENCH_QUICK=1 bun run bench/run.ts   smoke version: small scale, well under two minutes
 *   BENCH_ONLY=import,matching           run only these (names below)
 *   BENCH_TIMEOUT_S=1800                 per-bench time limit (default 1800 s; quick 300 s)
 *
 * The benches print their own numbers and targets; this runner adds timing and a summary.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { loadavg } from "node:os";
import { join } from "node:path";

interface Bench {
  name: string;
  file: string;
  what: string;
  /** Extra arguments and environment for BENCH_QUICK runs. */
  quickArgs?: string[];
  quickEnv?: Record<string, string>;
}

const BENCHES: Bench[] = [
  { name: "import", file: "import.ts", what: "list import time and peak RSS: real files, then production scale (generated)" },
  {
    name: "matching",
    file: "matching.ts",
    what: "index build, memory and single-name latency of the matching engine vs a baseline scan",
    quickArgs: ["--scale=50000", "--queries=300"],
  },
  {
    name: "http-screening",
    file: "http-screening.ts",
    what: "the real server: single screens closed loop (capacity) and open loop (latency at fixed rates), one 1,000-row bulk",
    quickEnv: { BENCH_SECONDS: "3", BENCH_OPEN_SECONDS: "3" },
  },
];

const QUICK = process.env.BENCH_QUICK === "1";
const ONLY = process.env.BENCH_ONLY?.split(",").map((s) => s.trim()).filter(Boolean);
const TIMEOUT_S = Number(process.env.BENCH_TIMEOUT_S ?? (QUICK ? 300 : 1800));

/** The bench running now: its process group gets Ctrl-C too (it is not in the terminal's foreground group). */
let running: ChildProcess | undefined;
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.on(signal, () => {
    if (running?.pid !== undefined) {
      try {
        process.kill(-running.pid, signal);
      } catch {
        // Already gone.
      }
    }
    process.exit(130);
  });
}

interface Outcome {
  name: string;
  status: "ok" | "failed" | "missing" | "skipped";
  seconds: number;
  detail: string;
}

async function runBench(bench: Bench): Promise<Outcome> {
  const path = join(import.meta.dir, bench.file);
  if (!existsSync(path)) return { name: bench.name, status: "missing", seconds: 0, detail: `bench/${bench.file} does not exist` };
  const args = QUICK ? (bench.quickArgs ?? []) : [];
  const env = { ...process.env, ...(QUICK ? bench.quickEnv : {}) };
  const shown = [...Object.entries(QUICK ? (bench.quickEnv ?? {}) : {}).map(([k, v]) => `${k}=${v}`), "bun run", `bench/${bench.file}`, ...args].join(" ");
  console.log(`\n${"=".repeat(100)}\n== ${bench.name}: ${bench.what}\n== ${shown}\n${"=".repeat(100)}`);
  const started = performance.now();
  // Its own process group, so a time limit also stops the processes the bench started (import-one, the HTTP client).
  const child = spawn(process.execPath, ["run", path, ...args], { stdio: "inherit", env, detached: true });
  running = child;
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    if (child.pid !== undefined) {
      try {
        process.kill(-child.pid, "SIGTERM");
      } catch {
        child.kill("SIGTERM");
      }
    }
  }, TIMEOUT_S * 1000);
  const code = await new Promise<number | null>((resolve, reject) => {
    child.once("error", reject);
    child.once("exit", (exitCode, signal) => resolve(exitCode ?? (signal ? 128 : null)));
  });
  clearTimeout(timer);
  running = undefined;
  const seconds = (performance.now() - started) / 1000;
  if (timedOut) return { name: bench.name, status: "failed", seconds, detail: `stopped after the ${TIMEOUT_S} s limit` };
  if (code !== 0) return { name: bench.name, status: "failed", seconds, detail: `exit code ${code}` };
  return { name: bench.name, status: "ok", seconds, detail: "" };
}

async function main(): Promise<number> {
  const started = performance.now();
  console.log(
    `make bench${QUICK ? " (BENCH_QUICK=1: smoke run at small scale)" : ""} — bun ${Bun.version}, ${navigator.hardwareConcurrency} cores, ` +
      `load average ${loadavg().map((l) => l.toFixed(2)).join(" ")}`,
  );
  const outcomes: Outcome[] = [];
  for (const bench of BENCHES) {
    if (ONLY && !ONLY.includes(bench.name)) {
      outcomes.push({ name: bench.name, status: "skipped", seconds: 0, detail: "not in BENCH_ONLY" });
      continue;
    }
    try {
      outcomes.push(await runBench(bench));
    } catch (err) {
      outcomes.push({ name: bench.name, status: "failed", seconds: 0, detail: err instanceof Error ? err.message : String(err) });
    }
  }
  console.log(`\n${"=".repeat(100)}\n== summary (${((performance.now() - started) / 1000).toFixed(0)} s)`);
  for (const o of outcomes) {
    console.log(`  ${o.name.padEnd(16)} ${o.status.padEnd(8)} ${o.seconds > 0 ? `${o.seconds.toFixed(1)} s` : ""}${o.detail ? `  ${o.detail}` : ""}`);
  }
  const failed = outcomes.filter((o) => o.status === "failed");
  if (failed.length > 0) console.log(`${failed.length} bench(es) failed: ${failed.map((o) => o.name).join(", ")}`);
  return failed.length > 0 ? 1 : 0;
}

process.exit(await main());
