import { afterAll, beforeAll, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { join } from "node:path";
import { DB_FILE } from "@/storage/db";
import { importListFiles } from "@/watchlists/import";
import { ofacFilesWith } from "../helpers/lists";
import { expectProblem, json } from "../helpers/api";
import { type BulkBody, type ScreeningWorld, startScreeningWorld } from "./world";

/**
 * Another process holding SQLite's write lock past busy_timeout (a list import or an admin command
 * stopped mid-transaction) made a screen answer 500 INTERNAL. Nothing was stored or charged, so the
 * honest answer is 503 with Retry-After: the client may retry, and nothing needs investigating.
 * The server's busy_timeout (10 s in production) is shortened on its own connection for the test.
 */
let world: ScreeningWorld;
let other: Database;

beforeAll(async () => {
  world = await startScreeningWorld();
  world.lists.server.ctx.db.sqlite.run("PRAGMA busy_timeout = 200");
  other = new Database(join(world.lists.server.dataDir, DB_FILE));
});
afterAll(async () => {
  other.close();
  await world.close();
});

test("a screen while another process holds the write lock is 503 NOT_READY with Retry-After, and a retry after it is released succeeds", async () => {
  const before = world.usedThisMonth();
  other.run("BEGIN IMMEDIATE");
  let refused: Awaited<ReturnType<ScreeningWorld["post"]>>;
  try {
    refused = await world.post("/v1/screenings/check", { fullName: "Ada Example" });
  } finally {
    other.run("ROLLBACK");
  }
  const problem = expectProblem(refused, 503, "NOT_READY");
  expect(problem.detail).toContain("locked by another process");
  expect(refused.headers.get("retry-after")).toBe("1");
  expect(world.usedThisMonth()).toBe(before);

  const retried = await world.post("/v1/screenings/check", { fullName: "Ada Example" });
  expect(retried.status).toBe(200);
  expect(world.usedThisMonth()).toBe(before + 1);
});

test("while another process holds the lock, reads are answered and a screen waits without stopping the server, then commits once the lock is free", async () => {
  const sqlite = world.lists.server.ctx.db.sqlite;
  sqlite.run("PRAGMA busy_timeout = 5000");
  const before = world.usedThisMonth();
  other.run("BEGIN IMMEDIATE");
  let settled = false;
  try {
    const check = world.post("/v1/screenings/check", { fullName: "Ada Example" }).finally(() => {
      settled = true;
    });
    const bulk = world.post("/v1/screenings/bulk", [{ fullName: "Ada Example" }, { fullName: "Jon Example" }]);
    // SQLite's own wait would hold the server's one thread: these reads were answered only after it.
    await Bun.sleep(50);
    const usage = await world.get("/v1/usage");
    expect(usage.status).toBe(200);
    expect((await world.get("/readyz")).status).toBe(200);
    expect(settled).toBe(false);
    other.run("ROLLBACK");
    const checked = await check;
    const bulked = await bulk;
    expect(checked.status).toBe(200);
    expect(bulked.status).toBe(200);
    expect(world.usedThisMonth()).toBe(before + 3);
    // The dispatcher skipped its claims while the lock was held, and delivers once it is free.
    const ids = [json<{ id: string }>(checked).id, ...json<BulkBody>(bulked).rows.map((r) => r.screeningId)];
    world.lists.webhooks.wake();
    await world.receiver.waitUntil(() => ids.every((id) => world.receiver.delivered.some((d) => d.body.screeningId === id)), 10_000);
  } finally {
    if (other.inTransaction) other.run("ROLLBACK");
    sqlite.run("PRAGMA busy_timeout = 200");
  }
});

test("a bulk that waited out the lock is 503 with nothing charged, and the server's busy_timeout is left as it was", async () => {
  const sqlite = world.lists.server.ctx.db.sqlite;
  const before = world.usedThisMonth();
  other.run("BEGIN IMMEDIATE");
  let refused: Awaited<ReturnType<ScreeningWorld["post"]>>;
  try {
    refused = await world.post("/v1/screenings/bulk", [{ fullName: "Ada Example" }]);
  } finally {
    other.run("ROLLBACK");
  }
  expectProblem(refused, 503, "NOT_READY");
  expect(refused.headers.get("retry-after")).toBe("1");
  expect(world.usedThisMonth()).toBe(before);
  expect(sqlite.query<{ timeout: number }, []>("PRAGMA busy_timeout").get()?.timeout).toBe(200);
});

test("a receiver's answer is recorded once the lock is free, not dropped for a lease reclaim to send the event again", async () => {
  const statusOf = (id: string) =>
    other.query<{ status: string; attempts: number }, [string]>("SELECT status, attempts FROM webhook_outbox WHERE screening_id = ?").get(id);
  world.receiver.delayMs = 300;
  try {
    const checked = await world.post("/v1/screenings/check", { fullName: "Ada Example" });
    expect(checked.status).toBe(200);
    const id = json<{ id: string }>(checked).id;
    world.lists.webhooks.wake();
    // The POST is out (the receiver answers after 300 ms): take the lock before its record commits,
    // and hold it well past the server's busy_timeout (200 ms).
    const deadline = Date.now() + 5_000;
    while (statusOf(id)?.status !== "delivering") {
      if (Date.now() > deadline) throw new Error("the event was never claimed");
      await Bun.sleep(2);
    }
    other.run("BEGIN IMMEDIATE");
    try {
      await Bun.sleep(1_000);
      expect(statusOf(id)?.status).toBe("delivering");
    } finally {
      other.run("ROLLBACK");
    }
    // Recorded as soon as the lock is free, well inside the lease (5 s): delivered at its first attempt.
    const settleBy = Date.now() + 3_000;
    while (statusOf(id)?.status !== "delivered" && Date.now() < settleBy) await Bun.sleep(10);
    expect(statusOf(id)).toEqual({ status: "delivered", attempts: 1 });
    expect(world.receiver.delivered.filter((d) => d.body.screeningId === id)).toHaveLength(1);
    const attempts = other.query<{ status_code: number | null }, [string]>(
      "SELECT a.status_code FROM webhook_attempts a JOIN webhook_outbox o ON o.id = a.outbox_id WHERE o.screening_id = ?",
    ).all(id);
    expect(attempts).toEqual([{ status_code: 204 }]);
  } finally {
    world.receiver.delayMs = 0;
  }
});

test("records that waited for the lock and then failed otherwise do not leave the dispatcher paused: later events are delivered", async () => {
  const statusOf = (id: string) => other.query<{ status: string }, [string]>("SELECT status FROM webhook_outbox WHERE screening_id = ?").get(id)?.status;
  world.receiver.delayMs = 300;
  let first = "";
  try {
    const checked = await world.post("/v1/screenings/check", { fullName: "Ada Example" });
    first = json<{ id: string }>(checked).id;
    world.lists.webhooks.wake();
    const deadline = Date.now() + 5_000;
    while (statusOf(first) !== "delivering") {
      if (Date.now() > deadline) throw new Error("the event was never claimed");
      await Bun.sleep(2);
    }
    // Held past busy_timeout while the POST is out; when it is released the record fails for
    // another reason (here a trigger; in life a full disk), and is given up.
    other.run("BEGIN IMMEDIATE");
    try {
      other.run("CREATE TRIGGER refuse_attempts BEFORE INSERT ON webhook_attempts BEGIN SELECT RAISE(ABORT, 'refused by the test'); END");
      await Bun.sleep(1_000);
    } finally {
      other.run("COMMIT");
    }
    await Bun.sleep(300);
  } finally {
    other.run("DROP TRIGGER IF EXISTS refuse_attempts");
    world.receiver.delayMs = 0;
  }
  expect(statusOf(first)).toBe("delivering");
  const next = json<{ id: string }>(await world.post("/v1/screenings/check", { fullName: "Jon Example" })).id;
  world.lists.webhooks.wake();
  // Recorded, not only received: the receiver counts the POST before its 204 reaches the server.
  await world.receiver.waitUntil(() => statusOf(next) === "delivered", 3_000);
  expect(world.receiver.delivered.some((d) => d.body.screeningId === next)).toBe(true);
});

test("a list import by the serving process waits for another process's lock without stopping the server, then records its version", async () => {
  const sqlite = world.lists.server.ctx.db.sqlite;
  sqlite.run("PRAGMA busy_timeout = 5000");
  const versions = () => other.query<{ n: number }, []>("SELECT count(*) AS n FROM list_versions").get()?.n ?? 0;
  const before = versions();
  other.run("BEGIN IMMEDIATE");
  let settled = false;
  let imported: ReturnType<typeof importListFiles> | undefined;
  try {
    // In the server's own process and connection, as POST /v1/lists/import runs it. SQLite's own wait
    // for the lock held the one thread: nothing else ran, this test's release included, for 5 s.
    imported = importListFiles(world.lists.server.ctx.db, ofacFilesWith([{ id: 990_001, name: "Lockwait Example" }]), { actor: { type: "cli", id: "test" } });
    void imported.finally(() => {
      settled = true;
    });
    await Bun.sleep(50);
    expect((await world.get("/v1/usage")).status).toBe(200);
    expect(settled).toBe(false);
  } finally {
    other.run("ROLLBACK");
  }
  try {
    const report = await imported;
    expect(report?.results.map((r) => r.status)).toContain("imported");
    expect(versions()).toBe(before + 1);
  } finally {
    sqlite.run("PRAGMA busy_timeout = 200");
  }
});
