/** Plain-text tables for the eval output. */
export function table(headers: readonly string[], rows: readonly (readonly (string | number)[])[]): string {
  const cells = [headers, ...rows].map((r) => r.map((c) => (typeof c === "number" ? fmt(c) : c)));
  const widths = headers.map((_, i) => Math.max(...cells.map((r) => String(r[i] ?? "").length)));
  const line = (r: readonly string[]) => r.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join("  ");
  return [line(cells[0]!), widths.map((w) => "-".repeat(w)).join("  "), ...cells.slice(1).map(line)].join("\n");
}

export function fmt(n: number): string {
  if (!Number.isFinite(n)) return "unreached";
  if (Number.isInteger(n)) return String(n);
  return n.toFixed(3);
}

export function pct(n: number): string {
  return `${(n * 100).toFixed(1)}%`;
}

export function per1000(n: number): string {
  return Number.isFinite(n) ? (n * 1000).toFixed(1) : "unreached";
}
