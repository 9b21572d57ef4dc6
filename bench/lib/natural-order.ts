/** OFAC writes individuals "LAST, First Middle"; customers write "First Middle Last". */
export function naturalOrder(name: string): string {
  const comma = name.indexOf(",");
  if (comma < 0) return name.trim();
  return `${name.slice(comma + 1).trim()} ${name.slice(0, comma).trim()}`.trim();
}
