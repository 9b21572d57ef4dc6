import { describe, expect, test } from "bun:test";
import { readdirSync } from "node:fs";
import { openDb, writeTx } from "@/storage/db";
import { committedValues, connectionPair } from "./connection-pair";

/** writeTx on a real file database, watched from a second connection that sees only what was committed. */
const pair = connectionPair();

const insert = (x: number) => pair.db.sqlite.query<unknown, [number]>("INSERT INTO t (x) VALUES (?)").run(x);
const committed = () => committedValues(pair);

describe("writeTx", () => {
  test("commits fn's writes and returns its result", () => {
    const result = writeTx(pair.db, () => {
      insert(1);
      insert(2);
      expect(committed()).toEqual([]);
      return "done";
    });
    expect(result).toBe("done");
    expect(committed()).toEqual([1, 2]);
    expect(pair.db.sqlite.inTransaction).toBe(false);
  });

  test("takes the write lock at BEGIN: another connection cannot write until it ends", () => {
    pair.other.sqlite.run("PRAGMA busy_timeout = 0");
    writeTx(pair.db, () => {
      expect(() => pair.other.sqlite.run("INSERT INTO t (x) VALUES (9)")).toThrow(/locked|busy/i);
    });
    pair.other.sqlite.run("INSERT INTO t (x) VALUES (9)");
    expect(committed()).toEqual([9]);
  });

  test("a throw rolls everything back, rethrows the error and leaves no transaction open", () => {
    const failure = new Error("refused");
    expect(() =>
      writeTx(pair.db, () => {
        insert(1);
        throw failure;
      }),
    ).toThrow(failure);
    expect(pair.db.sqlite.inTransaction).toBe(false);
    expect(committed()).toEqual([]);
    writeTx(pair.db, () => insert(2));
    expect(committed()).toEqual([2]);
  });

  test("nested, it runs under a savepoint: a throw undoes the inner work only", () => {
    writeTx(pair.db, () => {
      insert(1);
      expect(() =>
        writeTx(pair.db, () => {
          insert(2);
          insert(1); // UNIQUE violation
        }),
      ).toThrow(/UNIQUE/);
      expect(pair.db.sqlite.inTransaction).toBe(true);
      insert(3);
      writeTx(pair.db, () => insert(4));
    });
    expect(committed()).toEqual([1, 3, 4]);
  });

  test("nested savepoints stack: the innermost throw leaves the middle level's earlier work", () => {
    writeTx(pair.db, () => {
      writeTx(pair.db, () => {
        insert(1);
        expect(() =>
          writeTx(pair.db, () => {
            insert(2);
            throw new Error("inner");
          }),
        ).toThrow("inner");
        insert(3);
      });
    });
    expect(committed()).toEqual([1, 3]);
  });

  test("its statements do not outlive the connection: a clean close leaves no -wal or -shm file", () => {
    writeTx(pair.db, () => insert(1));
    expect(() => writeTx(pair.db, () => writeTx(pair.db, () => insert(1)))).toThrow(/UNIQUE/);
    pair.other.close();
    pair.db.close();
    expect(readdirSync(pair.dir).sort()).toEqual(["aml.db"]);
    // Reopened for afterEach, which closes both.
    pair.db = openDb(pair.dir, { migrate: false });
    pair.other = openDb(pair.dir, { migrate: false });
  });
});
