import { type Db, writeTx } from "@/storage/db";

/**
 * Inserts a copy of a stored screening under a new id with some columns replaced by the values
 * given (as SQLite stores them: JSON columns as text), to stand for a row an earlier build wrote.
 * Inserted, never updated: the database refuses to change a stored screening. Returns the new id.
 */
export function insertScreeningCopy(db: Db, of: string, replaced: Record<string, string>, id: string = crypto.randomUUID()): string {
  const columns = db.sqlite
    .query<{ name: string }, []>("PRAGMA table_info(screenings)")
    .all()
    .map((c) => c.name);
  const values: string[] = [id];
  const select = columns.map((column) => {
    if (column === "id") return "?1";
    const value = replaced[column];
    if (value === undefined) return column;
    values.push(value);
    return `?${values.length}`;
  });
  values.push(of);
  writeTx(db, () => db.sqlite.run(`INSERT INTO screenings (${columns.join(", ")}) SELECT ${select.join(", ")} FROM screenings WHERE id = ?${values.length}`, values));
  return id;
}
