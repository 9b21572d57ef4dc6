import { afterAll, describe, expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createLogger } from "@/lib/logger";
import { startCheckpointer } from "@/storage/checkpointer";
import { type Db, openDb, walAutocheckpoint } from "@/storage/db";
import { tempDataDir } from "../../helpers/server";

/** The WAL checkpointer thread, on real database files: it keeps the WAL short, and checkpointing falls back to the connection when it fails. */
const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

const log = createLogger("silent");

function freshDb(): Db {
  const dir = tempDataDir();
  dirs.push(dir);
  const db = openDb(dir, { migrate: false });
  db.sqlite.run("CREATE TABLE t (id INTEGER PRIMARY KEY, body TEXT NOT NULL)");
  return db;
}

/** 60 commits of 40 rows of 1 KiB, a few milliseconds apart like a server's group commits: about 700 WAL pages when nothing is checkpointed. */
async function writeLikeAServer(db: Db): Promise<void> {
  const insert = db.sqlite.query<unknown, [string]>("INSERT INTO t (body) VALUES (?)");
  for (let commit = 0; commit < 60; commit++) {
    db.sqlite.transaction(() => {
      for (let row = 0; row < 40; row++) insert.run("x".repeat(1024));
    })();
    await Bun.sleep(3);
  }
  // Two intervals for the last commit's frames to be copied.
  await Bun.sleep(100);
}

/** Frames in the WAL after one more small commit (read through a checkpoint call, which reports them). */
function walFramesAfterOneMoreCommit(db: Db): number {
  db.sqlite.run("INSERT INTO t (body) VALUES ('one more')");
  return db.sqlite.query<{ log: number }, []>("PRAGMA wal_checkpoint(PASSIVE)").get()?.log ?? -1;
}

describe("WAL checkpointer", () => {
  test("turns the connection's own checkpoints off and keeps the WAL short from its thread", async () => {
    const control = freshDb();
    control.sqlite.run("PRAGMA wal_autocheckpoint = 0");
    await writeLikeAServer(control);

    const db = freshDb();
    const checkpointer = startCheckpointer(db, log);
    expect(checkpointer).not.toBeNull();
    expect(await checkpointer?.started).toBe(true);
    expect(walAutocheckpoint(db)).toBe(0);
    await writeLikeAServer(db);

    // The worker copied every committed frame into the database file, so the next commit starts the
    // WAL again from its first frame; the control's WAL still holds every page it ever wrote.
    expect(walFramesAfterOneMoreCommit(control)).toBeGreaterThan(500);
    expect(walFramesAfterOneMoreCommit(db)).toBeLessThan(10);
    expect(db.sqlite.query<{ n: number }, []>("SELECT count(*) AS n FROM t").get()?.n).toBe(2_401);

    await checkpointer?.stop();
    expect(walAutocheckpoint(db)).toBe(1_000);
    db.close();
    control.close();
  });

  // Linux: a thread's wake-ups are its voluntary context switches in /proc.
  test.skipIf(!existsSync("/proc/self/task"))("sleeps while nothing is written, and still copies the next commit's frames", async () => {
    const tasks = () => new Set(readdirSync("/proc/self/task"));
    const before = tasks();
    const db = freshDb();
    const checkpointer = startCheckpointer(db, log);
    expect(await checkpointer?.started).toBe(true);
    const worker = [...tasks()].find((task) => !before.has(task) && readFileSync(`/proc/self/task/${task}/comm`, "utf8").trim() === "Worker");
    expect(worker).toBeDefined();
    const wakeUps = () => Number(/voluntary_ctxt_switches:\s+(\d+)/.exec(readFileSync(`/proc/self/task/${worker}/status`, "utf8"))?.[1]);

    db.sqlite.run("INSERT INTO t (body) VALUES ('before the quiet')");
    await Bun.sleep(2_500); // the pause has grown to CHECKPOINT_IDLE_MAX_MS
    const start = wakeUps();
    await Bun.sleep(2_000);
    // About 2 at one tick a second; a tick every CHECKPOINT_INTERVAL_MS (20 ms) made about 100.
    expect(wakeUps() - start).toBeLessThan(20);

    // After the quiet, a commit's frames are still copied, within the longest pause.
    await writeLikeAServer(db);
    await Bun.sleep(1_100);
    expect(walFramesAfterOneMoreCommit(db)).toBeLessThan(10);
    await checkpointer?.stop();
    db.close();
  });

  test("hands checkpointing back to the connection when the worker cannot start", async () => {
    const db = freshDb();
    const broken = join(dirs.at(-1) ?? "", "broken-worker.ts");
    writeFileSync(broken, 'throw new Error("no checkpoints today");\n');
    const checkpointer = startCheckpointer(db, log, { workerUrl: broken });
    expect(await checkpointer?.started).toBe(false);
    expect(walAutocheckpoint(db)).toBe(1_000);
    await checkpointer?.stop();
    db.close();
  });

  test("an in-memory database has no WAL and gets no checkpointer", () => {
    const db = openDb(":memory:", { migrate: false });
    expect(startCheckpointer(db, log)).toBeNull();
    db.close();
  });
});
