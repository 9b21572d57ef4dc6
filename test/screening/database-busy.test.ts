import { afterAll, beforeAll, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { join } from "node:path";
import { DB_FILE } from "@/storage/db";
import { expectProblem } from "../helpers/api";
import { type ScreeningWorld, startScreeningWorld } from "./world";

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
