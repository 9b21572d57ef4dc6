/** Items between collection hints in the large-file streams. */
const EVERY = 100_000;

/**
 * Parsing a million-line PEP file allocates several GB of short-lived JSON objects, and JSC
 * grows its heap lazily under that rate: RSS passed 1.4 GiB with under 150 MB live. A periodic
 * non-blocking collection hint keeps the import inside the appliance's memory budget.
 */
export function collectionHint(count: number): void {
  if (count % EVERY === 0 && typeof Bun !== "undefined") Bun.gc(true);
}
