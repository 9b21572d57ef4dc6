/** An append-only Uint32 buffer that doubles when full: index build avoids millions of small arrays. */
export class GrowableU32 {
  private buffer: Uint32Array;
  length = 0;

  constructor(initial = 1024) {
    this.buffer = new Uint32Array(Math.max(16, initial));
  }

  push(value: number): void {
    if (this.length === this.buffer.length) {
      const next = new Uint32Array(this.buffer.length * 2);
      next.set(this.buffer);
      this.buffer = next;
    }
    this.buffer[this.length++] = value;
  }

  get(i: number): number {
    return this.buffer[i]!;
  }

  /** A right-sized copy; the growable buffer is garbage after build. */
  toArray(): Uint32Array {
    return this.buffer.slice(0, this.length);
  }
}

/** Compressed sparse rows: `start[k]..start[k+1]` indexes `values` for row k. */
export interface Csr {
  readonly start: Uint32Array;
  readonly values: Uint32Array;
}

/** Builds a CSR from (row, value) pairs given as two parallel buffers. */
export function buildCsr(rows: number, rowOf: GrowableU32, valueAt: GrowableU32): Csr {
  const start = new Uint32Array(rows + 1);
  for (let i = 0; i < rowOf.length; i++) start[rowOf.get(i) + 1]!++;
  for (let r = 0; r < rows; r++) start[r + 1]! += start[r]!;
  const fill = start.slice(0, rows);
  const values = new Uint32Array(rowOf.length);
  for (let i = 0; i < rowOf.length; i++) values[fill[rowOf.get(i)]!++] = valueAt.get(i);
  return { start, values };
}

const NO_IDS = new Uint32Array(0);

/**
 * Ids grouped by a string key, stored as one CSR. A Map<string, number[]> holds an array per key:
 * for the real lists' 38,789-token vocabulary its three key maps held some 61,000 arrays, more than a
 * third of the objects the loaded lists left on the heap, and every full collection traces whatever
 * is live (docs/benchmark-log.md, seventh stop). Here a key costs a Map entry and a row number; ids keep
 * their insertion order.
 */
export class KeyedRows {
  private readonly rowOfKey = new Map<string, number>();
  /** The (row, id) pairs added so far; dropped by finish(), so the index does not keep its build buffers. */
  private pairs: { row: GrowableU32; id: GrowableU32 } | null = { row: new GrowableU32(1 << 12), id: new GrowableU32(1 << 12) };
  private rows: Csr | null = null;

  add(key: string, id: number): void {
    if (!this.pairs) throw new Error("KeyedRows is already finished");
    let row = this.rowOfKey.get(key);
    if (row === undefined) {
      row = this.rowOfKey.size;
      this.rowOfKey.set(key, row);
    }
    this.pairs.row.push(row);
    this.pairs.id.push(id);
  }

  /** Packs the pairs; after this the rows are read-only. */
  finish(): this {
    if (this.pairs) {
      this.rows = buildCsr(this.rowOfKey.size, this.pairs.row, this.pairs.id);
      this.pairs = null;
    }
    return this;
  }

  /** The ids added under `key`, in the order added (empty when none). */
  get(key: string): Uint32Array {
    if (!this.rows) throw new Error("KeyedRows is read before finish()");
    const row = this.rowOfKey.get(key);
    if (row === undefined) return NO_IDS;
    return this.rows.values.subarray(this.rows.start[row]!, this.rows.start[row + 1]!);
  }
}
