import { expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { join } from "node:path";
import { DB_FILE } from "@/storage/db";
import { expectProblem } from "../helpers/api";
import { startScreeningWorld } from "./world";

/**
 * A shutdown whose grace period (AML_SHUTDOWN_GRACE_MS) ends while a screen still waits for a write
 * lock another process holds. The server closed its database with the screen's unit still in the
 * group commit's lane: the client's connection was cut with no answer, and the lane's next poll ran
 * on a closed connection. The unit is now refused when the committer closes, before the connections
 * are: 503 with nothing stored, and the stop does not wait for the other process.
 */
test("a screen still waiting for another process's lock when the shutdown grace ends is answered 503 with nothing stored, and the stop does not wait for the lock", async () => {
  const world = await startScreeningWorld({ env: { AML_SHUTDOWN_GRACE_MS: "200" } });
  const server = world.lists.server;
  server.ctx.db.sqlite.run("PRAGMA busy_timeout = 20000");
  const other = new Database(join(server.dataDir, DB_FILE));
  const usedNow = () =>
    other.query<{ used: number }, [string]>("SELECT coalesce(sum(used), 0) AS used FROM usage_counters WHERE tenant_id = ?").get(world.tenant.tenant.id)
      ?.used ?? 0;
  const before = usedNow();
  try {
    other.run("BEGIN IMMEDIATE");
    const check = world.post("/v1/screenings/check", { fullName: "Ada Example" });
    await Bun.sleep(100);
    const stopped = server.stop();
    const answer = await check;
    const problem = expectProblem(answer, 503, "NOT_READY");
    expect(problem.detail).toContain("shutting down");
    expect(answer.headers.get("retry-after")).toBe("1");
    await stopped;
    // Stopped while the other process still holds the lock (busy_timeout is 20 s).
    expect(other.inTransaction).toBe(true);
  } finally {
    if (other.inTransaction) other.run("ROLLBACK");
  }
  expect(usedNow()).toBe(before);
  expect(other.query<{ n: number }, []>("SELECT count(*) AS n FROM screenings").get()?.n).toBe(0);
  other.close();
  await world.close();
});
