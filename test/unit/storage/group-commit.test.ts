import { describe, expect, test } from "bun:test";
import { groupCommit } from "@/storage/group-commit";
import { committedValues, connectionPair } from "./connection-pair";

/** Group commit on a real file database: shared transactions, per-unit savepoints, acknowledgement after COMMIT. */
const pair = connectionPair();

const insert = (x: number) => () => pair.db.sqlite.query<unknown, [number]>("INSERT INTO t (x) VALUES (?)").run(x).changes;
const committed = () => committedValues(pair);

describe("group commit", () => {
  test("units submitted in one turn share one transaction, and each resolves only once it is committed", async () => {
    const seenInsideByOthers: number[][] = [];
    const results = await Promise.all([
      groupCommit(pair.db).run(insert(1)),
      groupCommit(pair.db).run(() => {
        // Runs after unit 1 in the same transaction: sees its row, while another connection sees nothing yet.
        seenInsideByOthers.push(committed());
        return pair.db.sqlite.query<{ n: number }, []>("SELECT count(*) AS n FROM t").get()?.n;
      }),
      groupCommit(pair.db).run(insert(2)),
    ]);
    expect(results).toEqual([1, 1, 1]);
    expect(seenInsideByOthers).toEqual([[]]);
    expect(committed()).toEqual([1, 2]);
  });

  test("a unit that throws rolls back alone; the others commit and resolve", async () => {
    const outcomes = await Promise.allSettled([
      groupCommit(pair.db).run(insert(1)),
      groupCommit(pair.db).run(() => {
        insert(2)();
        insert(1)(); // UNIQUE violation: unit 2's own row must go too
      }),
      groupCommit(pair.db).run(insert(3)),
    ]);
    expect(outcomes.map((o) => o.status)).toEqual(["fulfilled", "rejected", "fulfilled"]);
    expect(String((outcomes[1] as PromiseRejectedResult).reason)).toContain("UNIQUE");
    expect(committed()).toEqual([1, 3]);
    expect(pair.db.sqlite.inTransaction).toBe(false);
  });

  test("nothing is acknowledged before the commit: the promise is still pending after the submitting turn", async () => {
    let settled = false;
    const pending = groupCommit(pair.db)
      .run(insert(7))
      .then(() => {
        settled = true;
      });
    await Promise.resolve();
    expect(settled).toBe(false);
    expect(committed()).toEqual([]);
    await pending;
    expect(committed()).toEqual([7]);
  });

  test("background units gather for their delay and commit together, apart from the requests' transactions", async () => {
    const started = performance.now();
    const background = Promise.all([groupCommit(pair.db).run(insert(1), { maxDelayMs: 40 }), groupCommit(pair.db).run(insert(2), { maxDelayMs: 40 })]);
    // A request's unit does not wait for them, nor take them along.
    await groupCommit(pair.db).run(insert(3));
    expect(performance.now() - started).toBeLessThan(30);
    expect(committed()).toEqual([3]);
    await background;
    expect(performance.now() - started).toBeGreaterThanOrEqual(35);
    expect(committed()).toEqual([1, 2, 3]);
  });

  test("a failure that ends the whole transaction fails every unit of the batch, and none is stored", async () => {
    const outcomes = await Promise.allSettled([
      groupCommit(pair.db).run(insert(1)),
      groupCommit(pair.db).run(() => {
        // Ends the outer transaction, as SQLite itself does after SQLITE_FULL or an I/O error.
        pair.db.sqlite.run("ROLLBACK");
        throw new Error("disk full");
      }),
      groupCommit(pair.db).run(insert(2)),
    ]);
    expect(outcomes.map((o) => o.status)).toEqual(["rejected", "rejected", "rejected"]);
    expect(committed()).toEqual([]);
    expect(pair.db.sqlite.inTransaction).toBe(false);
  });
});
