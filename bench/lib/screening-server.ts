/**
 * What the HTTP benches share: a data folder holding every real list and a bench tenant, the server
 * under test as `aml serve` in a process of its own, the tenant's webhook receiver in another, the
 * names the clients send and the request that sends one.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { openContext } from "../../src/bootstrap";
import { loadConfig } from "../../src/config";
import { createLogger } from "../../src/lib/logger";
import { openDb } from "../../src/storage/db";
import { createTenant } from "../../src/tenants/create";
import { importListFiles } from "../../src/watchlists/import";
import type { Send } from "./load-gen";
import { unlistedNames } from "./queries";
import { realListFileSets } from "./real-lists";

/** The project this bench belongs to: the default tree a server runs from. */
export const PROJECT_ROOT = join(import.meta.dir, "../..");

export interface BenchFolder {
  apiKey: string;
  /** Listed persons' primary names, the hits the clients send. */
  persons: string[];
  entities: number;
  loadMs: number;
}

/**
 * Imports every real list into `dataDir` and creates the bench tenant, with `webhookUrl` as its
 * receiver when given. Only the persons' names are kept from the parse: the server is another
 * process, and a bench that ran it in this one made it carry every parsed entity (about 90 MB of
 * heap the appliance never holds), which doubled its young collections' pauses
 * (docs/benchmark-log.md, eighth stop).
 */
export async function prepareBenchFolder(dataDir: string, webhookUrl: string | null): Promise<BenchFolder> {
  const started = performance.now();
  const persons: string[] = [];
  let entities = 0;
  const config = loadConfig({ env: {}, flags: { dataDir, webhooks: { allowPrivateNetworks: ["127.0.0.1"] } } });
  const ctx = openContext(config, { log: createLogger("silent") });
  try {
    for (const files of realListFileSets()) {
      await importListFiles(ctx.db, files, { actor: { type: "system", id: "bench" } }, {
        onParsed: (lists) => {
          for (const list of lists) {
            entities += list.entities.length;
            for (const entity of list.entities) if (entity.entityType === "person") persons.push(entity.primaryName);
          }
        },
      });
    }
    const { apiKey } = createTenant(
      ctx,
      {
        name: "Bench Bank",
        slug: `bench-${process.pid}`,
        contactEmail: "bench@bank.example",
        plan: "enterprise",
        enabledLists: ["OFAC", "EU", "UK", "UN", "WIKIDATA"],
        ...(webhookUrl ? { webhookUrl } : {}),
      },
      { actor: { type: "system", id: "bench" } },
    );
    return { apiKey, persons, entities, loadMs: performance.now() - started };
  } finally {
    ctx.db.close();
  }
}

/**
 * Names to send, alternating: a listed person (a hit; 300 of them, some with their surname first) and
 * a real-world name that matches nothing (the 50,000 yente synthetic negatives, many scripts, each
 * sent once per cycle). Most names a bank screens are new to the server, so the unlisted half must
 * be too: its tokens keep missing the query-expansion cache as production's do.
 */
export function benchNames(listed: readonly string[]): string[] {
  const step = Math.max(1, Math.floor(listed.length / 300));
  const hits = listed.filter((_, i) => i % step === 0).slice(0, 300);
  const misses = unlistedNames();
  return misses.flatMap((miss, i) => [hits[i % hits.length] ?? miss, miss]);
}

/** One single screen per call, the names in turn; true on 200, else what came back (Send). */
export function screenSender(url: string, apiKey: string, names: readonly string[], onAnswer?: (bytes: number) => void): Send {
  const headers = { "content-type": "application/json", "x-api-key": apiKey };
  let next = 0;
  return async () => {
    const fullName = names[next++ % names.length] ?? "Jane Roe";
    const res = await fetch(`${url}/v1/screenings/check`, { method: "POST", headers, body: JSON.stringify({ fullName }) });
    if (res.status === 200) {
      const body = await res.arrayBuffer();
      onAnswer?.(body.byteLength);
      return true;
    }
    // A problem body names what went wrong; its title and detail tell one error from another.
    const text = await res.text();
    return `HTTP ${res.status} ${text.slice(0, 200)}`;
  };
}

/**
 * Reads a child's output until `pattern` matches what it has written so far; the match's first group.
 * The reader stays locked: the caller releases it or keeps draining it.
 */
async function readUntil(reader: { read(): Promise<{ done: boolean; value?: Uint8Array }> }, pattern: RegExp, what: string): Promise<string> {
  const decoder = new TextDecoder();
  let text = "";
  for (;;) {
    const { done, value } = await reader.read();
    if (done) throw new Error(`${what} exited before listening:\n${text}`);
    text += decoder.decode(value, { stream: true });
    const found = pattern.exec(text)?.[1];
    if (found !== undefined) return found;
  }
}

/** A helper server of the benches in a process of its own: a script under bench/lib that prints its port. */
async function startHelperProcess(script: string, what: string): Promise<{ port: number; pid: number; stop: () => void }> {
  const child = Bun.spawn([process.execPath, "run", join(import.meta.dir, script)], { stdout: "pipe", stderr: "inherit" });
  const reader = child.stdout.getReader();
  const port = Number(await readUntil(reader, /^(\d+)\n/, what));
  reader.releaseLock();
  return { port, pid: child.pid, stop: () => child.kill() };
}

/** The webhook receiver (bench/lib/webhook-receiver.ts) in a process of its own, as a receiver on another machine would be. */
export function startReceiver(): Promise<{ port: number; stop: () => void }> {
  return startHelperProcess("webhook-receiver.ts", "webhook receiver");
}

/** The HTTP bench's baseline server (bench/lib/baseline-server.ts) in a process of its own, as the appliance runs. */
export function startBaselineServer(): Promise<{ port: number; pid: number; stop: () => void }> {
  return startHelperProcess("baseline-server.ts", "baseline server");
}

/** Sends to the baseline server: a body like a screen's, asking for `cpuMs` of its thread and a `bytes`-long answer. */
export function baselineSender(url: string, cpuMs: number, bytes: number): Send {
  const headers = { "content-type": "application/json", "x-baseline-cpu-ms": cpuMs.toFixed(4), "x-baseline-bytes": String(Math.round(bytes)) };
  const body = JSON.stringify({ fullName: "Jane Roe" });
  return async () => {
    const res = await fetch(url, { method: "POST", headers, body });
    await res.arrayBuffer();
    return res.status === 200 ? true : `HTTP ${res.status}`;
  };
}

export interface ServerProcess {
  url: string;
  pid: number;
  stop: () => Promise<void>;
}

/**
 * The server under test: `aml serve` from the source tree at `root`, in a process of its own, as the
 * appliance runs, on `dataDir`. Its stderr is passed through; it is silent unless something fails.
 * BENCH_SERVER_BUN_FLAGS (space-separated) go to its Bun, e.g. `--cpu-prof-md` to profile it.
 */
export async function startServerProcess(dataDir: string, root = PROJECT_ROOT): Promise<ServerProcess> {
  const bunFlags = (process.env.BENCH_SERVER_BUN_FLAGS ?? "").split(" ").filter(Boolean);
  const child = Bun.spawn(
    [process.execPath, ...bunFlags, "run", join(root, "src/main.ts"), "--data-dir", dataDir, "serve", "--host", "127.0.0.1", "--port", "0", "--log-level", "silent"],
    { stdout: "ignore", stderr: "pipe", env: { ...process.env, AML_WEBHOOK_ALLOW_PRIVATE: "127.0.0.1" } },
  );
  const reader = child.stderr.getReader();
  const url = await readUntil(reader, /aml listening on (\S+)/, "aml serve");
  // Keep draining its stderr so a full pipe never blocks the server.
  void (async () => {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      process.stderr.write(value);
    }
  })();
  return {
    url,
    pid: child.pid,
    stop: async () => {
      child.kill("SIGTERM");
      await child.exited;
    },
  };
}

/** Read while the server still runs; without the migration check, which takes the write lock once per migration. */
export function outboxCounts(dataDir: string): { delivered: number; other: number } {
  const db = openDb(dataDir, { migrate: false });
  try {
    return (
      db.sqlite
        .query<{ delivered: number; other: number }, []>(
          "SELECT coalesce(sum(status = 'delivered'), 0) AS delivered, coalesce(sum(status <> 'delivered'), 0) AS other FROM webhook_outbox",
        )
        .get() ?? { delivered: 0, other: 0 }
    );
  } finally {
    db.close();
  }
}

/**
 * Runs `script` again as the load-generating client, in a process of its own so its CPU is not the
 * caller's: writes `plan` to `planFile`, passes it with `--client`, and parses what the client prints
 * on stdout (its stderr is passed through).
 */
export async function runClientProcess<R>(script: string, planFile: string, plan: unknown): Promise<R> {
  writeFileSync(planFile, JSON.stringify(plan));
  const child = Bun.spawn([process.execPath, "run", script, "--client", planFile], { stdout: "pipe", stderr: "inherit" });
  const [out, code] = await Promise.all([new Response(child.stdout).text(), child.exited]);
  if (code !== 0) throw new Error(`bench client exited with ${code}`);
  return JSON.parse(out) as R;
}

/** In the client process (`--client <plan file>`), the plan runClientProcess wrote; otherwise null. */
export function clientPlan<P>(): P | null {
  const at = process.argv.indexOf("--client");
  return at >= 0 ? (JSON.parse(readFileSync(process.argv[at + 1] ?? "", "utf8")) as P) : null;
}
