import { afterAll, afterEach, beforeEach } from "bun:test";
import { rmSync } from "node:fs";
import { type Db, openDb } from "@/storage/db";
import { tempDataDir } from "../../helpers/server";

/** A real file database with one table t (x INTEGER NOT NULL UNIQUE), open on two connections. */
export interface ConnectionPair {
  dir: string;
  /** The connection under test. */
  db: Db;
  /** A second connection: it sees only what `db` committed. */
  other: Db;
}

/** Registers hooks that give every test a fresh pair, close both connections after it and remove the folders at the end. */
export function connectionPair(): ConnectionPair {
  const dirs: string[] = [];
  const pair = {} as ConnectionPair;
  beforeEach(() => {
    pair.dir = tempDataDir();
    dirs.push(pair.dir);
    pair.db = openDb(pair.dir, { migrate: false });
    pair.db.sqlite.run("CREATE TABLE t (x INTEGER NOT NULL UNIQUE)");
    pair.other = openDb(pair.dir, { migrate: false });
  });
  afterEach(() => {
    pair.other.close();
    pair.db.close();
  });
  afterAll(() => {
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });
  return pair;
}

/** The values of t that `other` sees, that is, those committed. */
export function committedValues(pair: ConnectionPair): number[] {
  return pair.other.sqlite.query<{ x: number }, []>("SELECT x FROM t ORDER BY x").all().map((r) => r.x);
}
