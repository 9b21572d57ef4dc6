import { afterAll, beforeAll, expect, test } from "bun:test";
import { expectProblem, json } from "../helpers/api";
import { type ScreeningWorld, startScreeningWorld } from "./world";

/**
 * A full disk made every screen answer 500 INTERNAL, which tells a client neither that nothing was
 * charged nor that a retry will do (a crash-consistency probe filled a tmpfs under the data folder).
 * SQLite's max_page_count gives the same SQLITE_FULL on the server's own connection without filling a
 * disk: the database may not grow past the pages it has.
 */
let world: ScreeningWorld;

beforeAll(async () => {
  world = await startScreeningWorld();
});
afterAll(() => world.close());

test("a bulk on a full disk is 503 NOT_READY with Retry-After, nothing charged; with space again it succeeds", async () => {
  const sqlite = world.lists.server.ctx.db.sqlite;
  const before = world.usedThisMonth();
  const pages = sqlite.query<{ page_count: number }, []>("PRAGMA page_count").get()?.page_count ?? 0;
  const rows = Array.from({ length: 500 }, (_, i) => ({ fullName: `Ada Example ${i}`, userReference: `ref-${i}` }));
  sqlite.run(`PRAGMA max_page_count = ${pages}`);
  let bulk: Awaited<ReturnType<ScreeningWorld["post"]>>;
  try {
    bulk = await world.post("/v1/screenings/bulk", rows);
  } finally {
    sqlite.run("PRAGMA max_page_count = 1073741823");
  }
  const problem = expectProblem(bulk, 503, "NOT_READY");
  expect(problem.detail).toBe("The appliance's disk is full: nothing was stored or charged. Retry once the administrator has freed space.");
  expect(bulk.headers.get("retry-after")).toBe("60");
  expect(world.usedThisMonth()).toBe(before);

  const retried = await world.post("/v1/screenings/bulk", rows);
  expect(retried.status).toBe(200);
  expect(json<{ summary: { screened: number } }>(retried).summary.screened).toBe(rows.length);
  expect(world.usedThisMonth()).toBe(before + rows.length);
});
