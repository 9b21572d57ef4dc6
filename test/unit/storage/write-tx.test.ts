import { afterAll, afterEach, beforeEach, describe, expect, test } from "bun:test";
import { readdirSync, rmSync } from "node:fs";
import { type Db, openDb, writeTx } from "@/storage/db";
import { tempDataDir } from "../../helpers/server";

/** writeTx on a real file database, watched from a second connection that sees only what was committed. */
const dirs: string[] = [];
let dir: string;
let db: Db;
let other: Db;

beforeEach(() => {
  dir = tempDataDir();
  dirs.push(dir);
  db = openDb(dir, { migrate: false });
  db.sqlite.run("CREATE TABLE t (x INTEGER NOT NULL UNIQUE)");
  other = openDb(dir, { migrate: false });
});
afterEach(() => {
  other.close();
  db.close();
});
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

const insert = (x: number) => db.sqlite.query<unknown, [number]>("INSERT INTO t (x) VALUES (?)").run(x);
const committed = () => other.sqlite.query<{ x: number }, []>("SELECT x FROM t ORDER BY x").all().map((r) => r.x);

describe("writeTx", () => {
  test("commits fn's writes and returns its result", () => {
    const result = writeTx(db, () => {
      insert(1);
      insert(2);
      expect(committed()).toEqual([]);
      return "done";
    });
    expect(result).toBe("done");
    expect(committed()).toEqual([1, 2]);
    expect(db.sqlite.inTransaction).toBe(false);
  });

  test("takes the write lock at BEGIN: another connection cannot write until it ends", () => {
    other.sqlite.run("PRAGMA busy_timeout = 0");
    writeTx(db, () => {
      expect(() => other.sqlite.run("INSERT INTO t (x) VALUES (9)")).toThrow(/locked|busy/i);
    });
    other.sqlite.run("INSERT INTO t (x) VALUES (9)");
    expect(committed()).toEqual([9]);
  });

  test("a throw rolls everything back, rethrows the error and leaves no transaction open", () => {
    const failure = new Error("refused");
    expect(() =>
      writeTx(db, () => {
        insert(1);
        throw failure;
      }),
    ).toThrow(failure);
    expect(db.sqlite.inTransaction).toBe(false);
    expect(committed()).toEqual([]);
    writeTx(db, () => insert(2));
    expect(committed()).toEqual([2]);
  });

  test("nested, it runs under a savepoint: a throw undoes the inner work only", () => {
    writeTx(db, () => {
      insert(1);
      expect(() =>
        writeTx(db, () => {
          insert(2);
          insert(1); // UNIQUE violation
        }),
      ).toThrow(/UNIQUE/);
      expect(db.sqlite.inTransaction).toBe(true);
      insert(3);
      writeTx(db, () => insert(4));
    });
    expect(committed()).toEqual([1, 3, 4]);
  });

  test("nested savepoints stack: the innermost throw leaves the middle level's earlier work", () => {
    writeTx(db, () => {
      writeTx(db, () => {
        insert(1);
        expect(() =>
          writeTx(db, () => {
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
    writeTx(db, () => insert(1));
    expect(() => writeTx(db, () => writeTx(db, () => insert(1)))).toThrow(/UNIQUE/);
    other.close();
    db.close();
    expect(readdirSync(dir).sort()).toEqual(["aml.db"]);
    // Reopened for afterEach, which closes both.
    db = openDb(dir, { migrate: false });
    other = openDb(dir, { migrate: false });
  });
});
