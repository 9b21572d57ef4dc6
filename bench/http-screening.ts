/**
 * HTTP screening benchmark: the real server (every `aml serve` extension) over a data folder holding
 * every real list from /work/shared/watchlists, loaded by a SEPARATE client process so the load
 * generator's CPU is not the server's. Phase 1: BENCH_CLIENTS (16) concurrent clients send single
 * screens for BENCH_SECONDS (30). Phase 2: one bulk request of 1,000 rows, timed end to end.
 * Prints numbers, the error count and the targets; it asserts nothing.
 *
 *   bun run bench/http-screening.ts            (BENCH_SECONDS=5 for a quick run)
 *
 * The tenant has a webhook receiver (204) so each screen also pays for its outbox row and delivery,
 * as in production; BENCH_NO_HOOK=1 leaves it out to isolate the dispatcher's share.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { serverExtensions } from "../src/cli/extensions";
import { loadConfig } from "../src/config";
import { createLogger } from "../src/lib/logger";
import { startServer } from "../src/server";
import { openDb } from "../src/storage/db";
import { createTenant } from "../src/tenants/create";
import { importListFiles, type ListFile } from "../src/watchlists/import";

const ROOT = "/work/shared/watchlists";
const TARGETS = { p50Ms: 5, p99Ms: 25, bulkMs: 2_000 };

/** One current file set per source; the snapshots/ folders hold older copies and the EU file is a fictional sample. */
const SOURCES: Array<{ dir: string; accept: (name: string) => boolean }> = [
  { dir: "ofac", accept: (n) => /^(sdn|add|alt|sdn_comments|cons_prim|cons_add|cons_alt|cons_comments)\.csv$/.test(n) },
  { dir: "un", accept: (n) => n === "consolidated.xml" },
  { dir: "uk", accept: (n) => n === "ConList.xlsx" },
  { dir: "wikidata", accept: () => true },
];

interface ClientPlan {
  url: string;
  key: string;
  names: string[];
  seconds: number;
  clients: number;
}

export interface HttpBenchResult {
  entities: number;
  loadMs: number;
  requests: number;
  errors: number;
  seconds: number;
  p50: number;
  p90: number;
  p99: number;
  max: number;
  bulkMs: number;
  bulkScreened: number;
  bulkErrors: number;
}

function filesOf(dir: string, accept: (name: string) => boolean): ListFile[] {
  const out: ListFile[] = [];
  for (const name of readdirSync(dir).sort()) {
    const full = join(dir, name);
    if (statSync(full).isDirectory()) {
      if (name !== "snapshots") out.push(...filesOf(full, accept));
    } else if (accept(name)) out.push({ name, bytes: readFileSync(full) });
  }
  return out;
}

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
}

/** Names to send: listed persons (hits, some with their surname first) mixed with names that match nothing. */
function benchNames(entities: ReadonlyArray<{ entityType: string; primaryName: string }>): string[] {
  const listed = entities.filter((e) => e.entityType === "person").map((e) => e.primaryName);
  const step = Math.max(1, Math.floor(listed.length / 300));
  const hits = listed.filter((_, i) => i % step === 0).slice(0, 300);
  const given = ["Anna", "Lukas", "Maria", "Jonas", "Sofia", "Pedro", "Chen", "Amira", "Oliver", "Yuki", "Fatima", "Mateo"];
  const family = ["Lindqvist", "Okafor", "Brennan", "Kowalczyk", "Haddad", "Moreau", "Tanaka", "Esposito", "Novak", "Fischer"];
  const misses = Array.from({ length: 300 }, (_, i) => `${given[i % given.length]} ${family[(i * 7) % family.length]}-${i}`);
  return [...hits, ...misses];
}

async function runClients(plan: ClientPlan): Promise<{ latencies: number[]; errors: number; elapsedMs: number; bulkMs: number; bulkScreened: number; bulkErrors: number }> {
  const headers = { "content-type": "application/json", "x-api-key": plan.key };
  const latencies: number[] = [];
  let errors = 0;
  const started = performance.now();
  const deadline = started + plan.seconds * 1000;
  let next = 0;
  const worker = async () => {
    while (performance.now() < deadline) {
      const fullName = plan.names[next++ % plan.names.length] ?? "Jane Roe";
      const t0 = performance.now();
      try {
        const res = await fetch(`${plan.url}/v1/screenings/check`, { method: "POST", headers, body: JSON.stringify({ fullName }) });
        await res.arrayBuffer();
        if (res.status !== 200) errors++;
      } catch {
        errors++;
      }
      latencies.push(performance.now() - t0);
    }
  };
  await Promise.all(Array.from({ length: plan.clients }, worker));
  const elapsedMs = performance.now() - started;

  const rows = Array.from({ length: 1000 }, (_, i) => ({ fullName: plan.names[i % plan.names.length], userReference: `bench-${i}` }));
  const b0 = performance.now();
  const res = await fetch(`${plan.url}/v1/screenings/bulk`, { method: "POST", headers, body: JSON.stringify(rows) });
  const body = (await res.json()) as { summary?: { screened: number; failed: number } };
  const bulkMs = performance.now() - b0;
  return {
    latencies,
    errors,
    elapsedMs,
    bulkMs,
    bulkScreened: body.summary?.screened ?? 0,
    bulkErrors: res.status === 200 ? (body.summary?.failed ?? 0) : 1000,
  };
}

export async function runHttpScreeningBench(options: { seconds?: number; clients?: number } = {}): Promise<HttpBenchResult> {
  const seconds = options.seconds ?? Number(process.env.BENCH_SECONDS ?? 30);
  const clients = options.clients ?? Number(process.env.BENCH_CLIENTS ?? 16);
  const dataDir = mkdtempSync(join(tmpdir(), "aml-bench-http-"));
  try {
    const db = openDb(dataDir);
    const loadStarted = performance.now();
    let entities: Array<{ entityType: string; primaryName: string }> = [];
    try {
      for (const source of SOURCES) {
        await importListFiles(db, filesOf(join(ROOT, source.dir), source.accept), { actor: { type: "system", id: "bench" } }, {
          onParsed: (lists) => {
            for (const list of lists) entities = entities.concat(list.entities as Array<{ entityType: string; primaryName: string }>);
          },
        });
      }
    } finally {
      db.close();
    }
    const loadMs = performance.now() - loadStarted;

    // A receiver answering 204, so every screen also pays for its outbox row and its delivery, as in production.
    const receiver = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response(null, { status: 204 }) });
    const config = loadConfig({
      env: {},
      flags: { dataDir, host: "127.0.0.1", port: 0, logLevel: "silent", webhooks: { allowPrivateNetworks: ["127.0.0.1"] } },
    });
    const server = await startServer(config, { log: createLogger("silent"), bearer: null, extensions: await serverExtensions(config) });
    try {
      const tenant = createTenant(
        server.ctx,
        {
          name: "Bench Bank",
          slug: `bench-${process.pid}`,
          contactEmail: "bench@bank.example",
          plan: "enterprise",
          enabledLists: ["OFAC", "EU", "UK", "UN", "WIKIDATA"],
          ...(process.env.BENCH_NO_HOOK ? {} : { webhookUrl: `http://127.0.0.1:${receiver.port}/hook` }),
        },
        { actor: { type: "system", id: "bench" } },
      );
      const planFile = join(dataDir, "plan.json");
      const plan: ClientPlan = { url: server.url, key: tenant.apiKey, names: benchNames(entities), seconds, clients };
      writeFileSync(planFile, JSON.stringify(plan));
      const child = Bun.spawn([process.execPath, "run", import.meta.path, "--client", planFile], { stdout: "pipe", stderr: "inherit" });
      const [out, code] = await Promise.all([new Response(child.stdout).text(), child.exited]);
      if (code !== 0) throw new Error(`bench client exited with ${code}`);
      const measured = JSON.parse(out) as Awaited<ReturnType<typeof runClients>>;
      const sorted = measured.latencies.sort((a, b) => a - b);
      return {
        entities: entities.length,
        loadMs,
        requests: sorted.length,
        errors: measured.errors,
        seconds: measured.elapsedMs / 1000,
        p50: percentile(sorted, 50),
        p90: percentile(sorted, 90),
        p99: percentile(sorted, 99),
        max: sorted[sorted.length - 1] ?? Number.NaN,
        bulkMs: measured.bulkMs,
        bulkScreened: measured.bulkScreened,
        bulkErrors: measured.bulkErrors,
      };
    } finally {
      await server.stop();
      await receiver.stop(true);
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

export function printHttpScreeningBench(r: HttpBenchResult, clients = Number(process.env.BENCH_CLIENTS ?? 16)): void {
  const ms = (v: number) => `${v.toFixed(2)} ms`;
  const verdict = (ok: boolean) => (ok ? "meets target" : "MISSES target");
  console.log(`HTTP screening bench — ${r.entities.toLocaleString("en")} real entities (lists imported in ${(r.loadMs / 1000).toFixed(1)} s)`);
  console.log(`  single screens: ${clients} concurrent clients in a separate process for ${r.seconds.toFixed(1)} s`);
  console.log(`    requests ${r.requests}  (${(r.requests / r.seconds).toFixed(0)}/s)  errors ${r.errors}`);
  console.log(`    p50 ${ms(r.p50)}  (target < ${TARGETS.p50Ms} ms: ${verdict(r.p50 < TARGETS.p50Ms)})`);
  console.log(`    p90 ${ms(r.p90)}`);
  console.log(`    p99 ${ms(r.p99)}  (target < ${TARGETS.p99Ms} ms: ${verdict(r.p99 < TARGETS.p99Ms)})`);
  console.log(`    max ${ms(r.max)}`);
  console.log(`  bulk 1,000 rows: ${ms(r.bulkMs)}  (target < ${TARGETS.bulkMs} ms: ${verdict(r.bulkMs < TARGETS.bulkMs)})  screened ${r.bulkScreened}  errors ${r.bulkErrors}`);
}

if (import.meta.main) {
  const at = process.argv.indexOf("--client");
  if (at >= 0) {
    const plan = JSON.parse(readFileSync(process.argv[at + 1] ?? "", "utf8")) as ClientPlan;
    process.stdout.write(JSON.stringify(await runClients(plan)));
  } else {
    printHttpScreeningBench(await runHttpScreeningBench());
  }
}
