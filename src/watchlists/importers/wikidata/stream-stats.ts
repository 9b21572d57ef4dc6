/** Filled in while a PEP stream is read; complete once the generator has finished. */
export interface PepStreamStats {
  publishedAt: string | null;
  warnings: string[];
  /** Persons read but not listed: no position and no link to a PEP of the input. */
  skippedPersons: number;
  /** Persons listed (PEPs plus relatives and associates). */
  emitted: number;
}

export function newPepStreamStats(): PepStreamStats {
  return { publishedAt: null, warnings: [], skippedPersons: 0, emitted: 0 };
}
