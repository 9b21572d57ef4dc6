import { afterEach, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { existsSync, readFileSync, readlinkSync, rmSync } from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";
import { ServiceError } from "@/errors";
import { DB_FILE, openDb } from "@/storage/db";
import { importListFiles } from "@/watchlists/import";
import { runCli } from "../helpers/cli";
import { fixtureFiles } from "../helpers/lists";
import { tempDataDir } from "../helpers/server";
import { waitFor } from "../helpers/wait";

/**
 * The import lock is a 60 s lease. An import killed mid-way (kill -9, a power cut) used to block
 * every import after it until the lease ran out, with a message saying an import was running. The
 * lock now names its process: one that no longer exists on this host is taken over at once, and a
 * live one is named, with when its lock would lapse.
 */
const SHARED = join(import.meta.dir, "..", "..", "..", "shared", "watchlists");
const OFAC = join(SHARED, "ofac");
const meta = { actor: { type: "system" as const, id: "lock-test" } };

const dataDirs: string[] = [];
const sleepers: Array<{ kill(): void }> = [];
afterEach(() => {
  for (const s of sleepers.splice(0)) s.kill();
  for (const dir of dataDirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function dataDir(): string {
  const dir = tempDataDir();
  dataDirs.push(dir);
  return dir;
}

function setLock(dir: string, value: Record<string, unknown>): void {
  const db = new Database(join(dir, DB_FILE));
  db.run("PRAGMA busy_timeout = 10000");
  db.run("INSERT INTO app_meta (key, value) VALUES ('lists.import.lock', ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value", [JSON.stringify(value)]);
  db.close();
}

function readLock(dir: string): Record<string, unknown> | null {
  if (!existsSync(join(dir, DB_FILE))) return null;
  const db = new Database(join(dir, DB_FILE), { readonly: true });
  try {
    const row = db.query<{ value: string }, []>("SELECT value FROM app_meta WHERE key = 'lists.import.lock'").get();
    return row ? (JSON.parse(row.value) as Record<string, unknown>) : null;
  } catch {
    return null; // the schema is not there yet
  } finally {
    db.close();
  }
}

/** A process id that was in use a moment ago and is no longer. */
async function endedPid(): Promise<number> {
  const proc = Bun.spawn(["true"]);
  await proc.exited;
  return proc.pid;
}

function livePid(): number {
  const proc = Bun.spawn(["sleep", "60"]);
  sleepers.push(proc);
  return proc.pid;
}

const inAMinute = () => new Date(Date.now() + 60_000).toISOString();

test("an import killed mid-way does not block the next one: its lock names a process that is gone", async () => {
  const dir = dataDir();
  const killed = Bun.spawn([process.execPath, "run", join(import.meta.dir, "..", "..", "src/main.ts"), "--data-dir", dir, "lists", "import", OFAC], {
    env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "/tmp", TZ: "UTC" },
    stdout: "ignore",
    stderr: "ignore",
  });
  // Killed while it holds the lock, as kill -9 or a power cut would.
  let lock: Record<string, unknown> | null = null;
  await waitFor(
    () => {
      lock = readLock(dir);
      return lock !== null;
    },
    60_000,
    { intervalMs: 10 },
  );
  killed.kill("SIGKILL");
  await killed.exited;
  const held = lock as unknown as Record<string, unknown>;
  expect(held.pid).toBe(killed.pid);
  expect(held.host).toBe(hostname());
  expect(held.pidNamespace).toBe(readlinkSync("/proc/self/ns/pid"));
  expect(held.bootId).toBe(readFileSync("/proc/sys/kernel/random/boot_id", "utf8").trim());
  expect(new Date(String(held.expiresAt)).getTime()).toBeGreaterThan(Date.now() + 30_000);

  const next = await runCli(["lists", "import", join(SHARED, "un", "consolidated.xml")], { dataDir: dir });
  expect(next.stderr).not.toContain("already running");
  expect(next.code).toBe(0);
  expect(next.stdout).toMatch(/UN\s+imported/);
  // The next import released the lock it took over.
  expect(readLock(dir)).toBeNull();
});

test("a live holder is named, with when its lock lapses; the CLI exits 1, since the command itself was right", async () => {
  const dir = dataDir();
  openDb(dir).close();
  const pid = livePid();
  setLock(dir, { owner: "other", holder: "cli:alice", host: hostname(), pid, startedAt: "2026-11-24T18:40:01.000Z", expiresAt: inAMinute() });

  const refused = await runCli(["lists", "import", join(SHARED, "un", "consolidated.xml")], { dataDir: dir });
  expect(refused.code).toBe(1);
  expect(refused.stderr).toContain(`error: A list import is already running (cli:alice, process ${pid} on ${hostname()}, started 2026-11-24 18:40:01 UTC)`);
  expect(refused.stderr).toMatch(/its lock lapses at \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC \(in (\d+) s\)/);
  // Nothing was imported, and the lock is still the other import's.
  expect(readLock(dir)?.owner).toBe("other");
});

test("a lock held on another host, PID namespace or boot, or without a process id, waits for its lease; the refusal says how long", async () => {
  const db = openDb(":memory:");
  const files = fixtureFiles(["consolidated.xml"], join(SHARED, "un"));
  const refusal = async () => importListFiles(db, files, meta).then(() => null, (error: unknown) => error);
  const here = { pidNamespace: readlinkSync("/proc/self/ns/pid"), bootId: readFileSync("/proc/sys/kernel/random/boot_id", "utf8").trim() };
  for (const holder of [
    { host: "another-host", pid: await endedPid(), ...here },
    { host: hostname() },
    // This host's name, but a process table this one cannot see (a container given the host's name,
    // `unshare`), or an earlier boot: its pid says nothing here.
    { host: hostname(), pid: await endedPid(), pidNamespace: "pid:[1]", bootId: here.bootId },
    { host: hostname(), pid: await endedPid(), pidNamespace: here.pidNamespace, bootId: "an-earlier-boot" },
    { host: hostname(), pid: await endedPid() },
  ]) {
    db.sqlite.run("INSERT INTO app_meta (key, value) VALUES ('lists.import.lock', ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value", [
      JSON.stringify({ owner: "other", holder: "admin:bob", expiresAt: inAMinute(), ...holder }),
    ]);
    const error = await refusal();
    expect(error).toBeInstanceOf(ServiceError);
    expect((error as ServiceError).status).toBe(409);
    const retryAfter = Number((error as ServiceError).headers?.["Retry-After"]);
    expect(retryAfter).toBeGreaterThanOrEqual(55);
    expect(retryAfter).toBeLessThanOrEqual(60);
  }
  // Once the lease has run out, it is taken over whoever held it.
  db.sqlite.run("UPDATE app_meta SET value = json_set(value, '$.expiresAt', ?) WHERE key = 'lists.import.lock'", [new Date(Date.now() - 1000).toISOString()]);
  expect(await refusal()).toBeNull();
  db.close();
});
