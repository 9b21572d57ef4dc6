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

