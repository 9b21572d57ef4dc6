import { afterEach, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { rmSync } from "node:fs";
import { join } from "node:path";
import { assertWritable, DB_FILE, enterWal, openDb } from "@/storage/db";
import { tempDataDir } from "../../helpers/server";

/**
 * SQLite opens a file it may not write read-only without a word, so a server on a data folder owned
 * by another user reported ready and answered every screen 500. The server now refuses to start;
 * here a connection opened read-only stands for the one SQLite falls back to.
 */
const folders: string[] = [];
afterEach(() => {
  for (const dir of folders.splice(0)) rmSync(dir, { recursive: true, force: true });
});

test("a connection that cannot write is refused, naming the file and what to do", () => {
  const dir = tempDataDir();
  folders.push(dir);
  openDb(dir).close();
  const path = join(dir, DB_FILE);
  const readOnly = new Database(path, { readonly: true });
  try {
    expect(() => assertWritable(readOnly, path)).toThrow(`${path} cannot be written (attempt to write a readonly database)`);
    expect(readOnly.inTransaction).toBe(false);
  } finally {
    readOnly.close();
  }
});

test("a writable connection passes and is left outside any transaction", () => {
  const dir = tempDataDir();
  folders.push(dir);
  const db = openDb(dir);
  try {
    assertWritable(db.sqlite, db.path);
    expect(db.sqlite.inTransaction).toBe(false);
  } finally {
    db.close();
  }
});

test("a writable connection whose write lock another process holds passes: it is only busy", () => {
  const dir = tempDataDir();
  folders.push(dir);
  const db = openDb(dir);
  const other = new Database(join(dir, DB_FILE));
  try {
    other.run("BEGIN IMMEDIATE");
    // At once, not after the connection's busy_timeout (10 s): a restart's event loop waited that long.
    const started = performance.now();
    assertWritable(db.sqlite, db.path);
    expect(performance.now() - started).toBeLessThan(2_000);
    expect(db.sqlite.inTransaction).toBe(false);
    const busyTimeout = Object.values(db.sqlite.query<Record<string, number>, []>("PRAGMA busy_timeout").get() ?? {})[0];
    expect(busyTimeout).toBe(10_000);
  } finally {
    other.run("ROLLBACK");
    other.close();
    db.close();
  }
});

test("a restored backup (rollback journal) that cannot be written is refused the same way when it is switched to WAL", () => {
  const dir = tempDataDir();
  folders.push(dir);
  const path = join(dir, DB_FILE);
  // What `aml backup` writes: a database in rollback-journal mode.
  const copy = new Database(path, { create: true });
  copy.run("PRAGMA journal_mode = DELETE");
  copy.run("CREATE TABLE t (x)");
  copy.close();
  const readOnly = new Database(path, { readonly: true });
  try {
    expect(() => enterWal(readOnly, path)).toThrow(
      `${path} cannot be written (attempt to write a readonly database): run aml as the user that owns the data folder, on a writable file system.`,
    );
  } finally {
    readOnly.close();
  }
  // Writable, it switches.
  const writable = new Database(path);
  try {
    enterWal(writable, path);
    expect(writable.query<{ journal_mode: string }, []>("PRAGMA journal_mode").get()?.journal_mode).toBe("wal");
  } finally {
    writable.close();
  }
});
