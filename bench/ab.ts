/**
 * Paired comparison of two builds of the server, for changes too small to see across separate runs.
 *
 * On this project's shared two-vCPU VM the same code's capacity moves by up to 1.5 times within two
 * minutes (docs/benchmark-log.md, seventeenth stop), so two `make bench` runs, one per build, mostly
 * compare two minutes of the machine. Here both builds serve at once, each from its own copy of one
 * data folder (every real list, the same tenant and webhook receiver), and a separate client process
 * loads them in short windows, alternately: A B, then B A, and so on. Each pair of windows shares the
 * machine's minute, so the difference within a pair is the builds'. An idle server costs nothing
 * measurable (1 tick of its main thread in 10 s), so the one not under load does not disturb the other.
 *
 *   bun run bench/ab.ts <A> <B>      (make bench-ab A=<A> B=<B>)
 *
 * A and B are git refs of this repository (checked out into temporary worktrees that share this
 * tree's node_modules, removed afterwards) or paths of source trees (an uncommitted experiment).
 *   AB_RATE=1700     open loop at this many requests/s in every window; `closed` for a closed loop
 *   AB_SECONDS=10    per window
 *   AB_ROUNDS=8      pairs of windows
 * Prints each window and, per quantity, the median of the pairs' differences (B - A) and how many
 * pairs went each way. It asserts nothing; see docs/benchmarks.md ("Comparing two builds").
 */
import { cpSync, existsSync, mkdtempSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { closedLoop, openLoop } from "./lib/load-gen";
import { measuredPhase } from "./lib/process-cpu";
import { signTestP } from "./lib/stats";
import {
  benchNames,
  clientPlan,
  outboxCounts,
  PROJECT_ROOT,
  prepareBenchFolder,
  runClientProcess,
  type ServerProcess,
  screenSender,
  startReceiver,
  startServerProcess,
} from "./lib/screening-server";

const CLIENTS = 16;
const WARM_UP_SECONDS = 3;
/** Between windows, so one window's webhook deliveries are not paid for in the next. */
const PAUSE_MS = 1_500;

interface Side {
  label: "A" | "B";
  /** What the user named: a ref or a path. */
  name: string;
  url: string;
  pid: number;
  dataDir: string;
}

interface Plan {
  key: string;
  names: string[];
  /** null: closed loop. */
  rate: number | null;
  seconds: number;
  rounds: number;
  sides: Side[];
}

interface Window {
  round: number;
  label: Side["label"];
  throughput: number;
  p50: number;
  p99: number;
  errors: number;
  /** Server main thread's busy share (0-1) and CPU per request (ms); NaN where /proc cannot be read. */
  busy: number;
  msPerRequest: number;
}

/** The client process: warm each side up, then the windows, alternating which side goes first. */
async function runClient(plan: Plan): Promise<Window[]> {
  const sides = plan.sides.map((side) => ({ ...side, send: screenSender(side.url, plan.key, plan.names) }));
  for (const side of sides) {
    await closedLoop("warm-up", side.send, CLIENTS, WARM_UP_SECONDS);
    await Bun.sleep(PAUSE_MS);
  }
  const windows: Window[] = [];
  for (let round = 0; round < plan.rounds; round++) {
    const order = round % 2 === 0 ? sides : [...sides].reverse();
    for (const side of order) {
      const rate = plan.rate;
      const phase = await measuredPhase(side.pid, () =>
        rate === null ? closedLoop(side.label, side.send, CLIENTS, plan.seconds) : openLoop(side.label, side.send, CLIENTS, rate, plan.seconds),
      );
      const cpu = phase.serverCpu;
      const window: Window = {
        round,
        label: side.label,
        throughput: phase.throughput,
        p50: phase.p50,
        p99: phase.p99,
        errors: phase.errors,
        busy: cpu?.mainThreadBusy ?? Number.NaN,
        msPerRequest: cpu?.mainThreadMsPerRequest ?? Number.NaN,
      };
      console.error(formatWindow(window));
      windows.push(window);
      await Bun.sleep(PAUSE_MS);
    }
  }
  return windows;
}

function formatWindow(w: Window): string {
  return `  round ${String(w.round + 1).padStart(2)}  ${w.label}  ${w.throughput.toFixed(0).padStart(6)} req/s  p50 ${w.p50.toFixed(2).padStart(7)} ms  p99 ${w.p99.toFixed(2).padStart(7)} ms  errors ${w.errors}  main busy ${(w.busy * 100).toFixed(1).padStart(5)}%  ${w.msPerRequest.toFixed(3)} ms/req`;
}

/** Whether `dir` is a project tree a server can run from. */
function isProjectTree(dir: string): boolean {
  return existsSync(join(dir, "src/main.ts"));
}

/** A source tree for `name`: the path itself, or a temporary worktree of the ref with this tree's node_modules. */
function checkout(name: string, scratch: string, label: string): { root: string; remove: () => void } {
  if (isProjectTree(name)) return { root: resolve(name), remove: () => {} };
  const root = join(scratch, `tree-${label}`);
  const git = (...args: string[]) => {
    const run = Bun.spawnSync(["git", ...args], { cwd: PROJECT_ROOT, stderr: "pipe" });
    if (run.exitCode !== 0) throw new Error(`git ${args.join(" ")}: ${run.stderr.toString().trim()}`);
  };
  git("worktree", "add", "--detach", root, name);
  symlinkSync(join(PROJECT_ROOT, "node_modules"), join(root, "node_modules"));
  return { root, remove: () => git("worktree", "remove", "--force", root) };
}

function median(values: number[]): number {
  const sorted = values.filter((v) => !Number.isNaN(v)).sort((a, b) => a - b);
  const mid = sorted.length / 2;
  if (sorted.length === 0) return Number.NaN;
  return Number.isInteger(mid) ? (sorted[mid - 1]! + sorted[mid]!) / 2 : sorted[Math.floor(mid)]!;
}

function printSummary(plan: Plan, windows: Window[], webhooks: { label: string; delivered: number; other: number }[]): void {
  const of = (label: Side["label"]) => windows.filter((w) => w.label === label);
  const load = plan.rate === null ? `closed loop, ${CLIENTS} clients` : `open loop at ${plan.rate}/s, at most ${CLIENTS} in flight`;
  console.log(`A/B: ${load}, ${plan.rounds} pairs of ${plan.seconds} s windows`);
  for (const side of plan.sides) {
    const w = of(side.label);
    console.log(
      `  ${side.label} (${side.name}): median ${median(w.map((x) => x.throughput)).toFixed(0)} req/s, p50 ${median(w.map((x) => x.p50)).toFixed(2)} ms, p99 ${median(w.map((x) => x.p99)).toFixed(2)} ms, main busy ${(median(w.map((x) => x.busy)) * 100).toFixed(1)}%, ${median(w.map((x) => x.msPerRequest)).toFixed(3)} ms/req, errors ${w.reduce((n, x) => n + x.errors, 0)}`,
    );
  }
  const a = of("A");
  const b = of("B");
  const pairs = a.map((x, i) => [x, b[i]] as const).filter((pair): pair is readonly [Window, Window] => pair[1] !== undefined);
  const quantities: Array<[string, (w: Window) => number, (d: number) => string]> = [
    ["req/s", (w) => w.throughput, (d) => (Math.round(d) || 0).toFixed(0)],
    ["main busy", (w) => w.busy * 100, (d) => `${d.toFixed(1)} points`],
    ["ms/req", (w) => w.msPerRequest, (d) => `${d.toFixed(3)} ms`],
    ["p50", (w) => w.p50, (d) => `${d.toFixed(2)} ms`],
    ["p99", (w) => w.p99, (d) => `${d.toFixed(2)} ms`],
  ];
  console.log("  paired differences, B - A (median; pairs where B was lower / higher; sign test p):");
  for (const [name, value, show] of quantities) {
    const diffs = pairs.map(([x, y]) => value(y) - value(x));
    const lower = diffs.filter((d) => d < 0).length;
    const higher = diffs.filter((d) => d > 0).length;
    console.log(`    ${name.padEnd(10)} ${show(median(diffs)).padStart(14)}   ${lower} lower / ${higher} higher   p = ${signTestP(lower, higher).toFixed(3)}`);
  }
  for (const w of webhooks) console.log(`  ${w.label}: webhook events delivered ${w.delivered}, not (yet) delivered ${w.other}`);
}

async function main(): Promise<void> {
  const [nameA, nameB] = process.argv.slice(2);
  if (!nameA || !nameB) throw new Error("usage: bun run bench/ab.ts <ref-or-tree A> <ref-or-tree B>");
  const rateSetting = process.env.AB_RATE ?? "1700";
  const rate = rateSetting === "closed" ? null : Number(rateSetting);
  if (rate !== null && !(rate > 0)) throw new Error(`AB_RATE must be a rate in requests/s or "closed", not ${rateSetting}`);
  const seconds = Number(process.env.AB_SECONDS ?? 10);
  const rounds = Number(process.env.AB_ROUNDS ?? 8);

  const scratch = mkdtempSync(join(tmpdir(), "aml-bench-ab-"));
  const trees: ReturnType<typeof checkout>[] = [];
  const servers: ServerProcess[] = [];
  let receiver: Awaited<ReturnType<typeof startReceiver>> | null = null;
  try {
    trees.push(checkout(nameA, scratch, "A"), checkout(nameB, scratch, "B"));
    receiver = await startReceiver();
    const folder = join(scratch, "data");
    const { apiKey, persons } = await prepareBenchFolder(folder, `http://127.0.0.1:${receiver.port}/hook`);
    const sides: Side[] = [];
    for (const [i, label] of (["A", "B"] as const).entries()) {
      const dataDir = join(scratch, `data-${label}`);
      cpSync(folder, dataDir, { recursive: true });
      const server = await startServerProcess(dataDir, trees[i]!.root);
      servers.push(server);
      sides.push({ label, name: i === 0 ? nameA : nameB, url: server.url, pid: server.pid, dataDir });
    }
    const plan: Plan = { key: apiKey, names: benchNames(persons), rate, seconds, rounds, sides };
    const windows = await runClientProcess<Window[]>(import.meta.path, join(scratch, "plan.json"), plan);
    await Bun.sleep(2_000); // the last window's deliveries
    const webhooks = sides.map((side) => ({ label: side.label, ...outboxCounts(side.dataDir) }));
    printSummary(plan, windows, webhooks);
  } finally {
    for (const server of servers) await server.stop();
    receiver?.stop();
    for (const tree of trees) {
      try {
        tree.remove();
      } catch (error) {
        // Left for `git worktree prune`; the comparison's result stands.
        console.error(`could not remove a temporary worktree: ${error instanceof Error ? error.message : String(error)}`);
      }
    }
    rmSync(scratch, { recursive: true, force: true });
  }
}

if (import.meta.main) {
  const plan = clientPlan<Plan>();
  if (plan) process.stdout.write(JSON.stringify(await runClient(plan)));
  else await main();
}
