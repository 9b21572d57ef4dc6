/**
 * The thread that parses a large PEP import (started by pep-stream.ts): it reads the large files
 * from disk (small ones beside them come in the start message), maps every person to an entity, and
 * serialises and hashes each entity as list_entities stores it. The importing thread then only diffs and inserts. Parsing was about 60% of a
 * million-person import, so the two halves now run side by side on two cores.
 *
 * Messages in (PepStreamMessage): "start" once, then "more" for each batch the importer has taken.
 * Messages out (PepStreamEvent): "rows" batches, then "end" with the stream's statistics, or "error".
 * At most `credits` batches are in flight, so a slow disk on the writing side never lets the parsed
 * rows pile up in memory.
 */
import type { PepStreamEvent, PepStreamMessage } from "./pep-stream";
import { describeStreamError, type PepStreamJob, streamPepJob } from "./pep-stream-job";
import { newPepStreamStats } from "./importers/wikidata/stream-stats";
import { entityRow } from "./store/entity-row";
import type { EntityRow } from "./store/types";

declare const self: Worker;

/** Rows per message: the importer's write chunk (CHUNK in store/record.ts), so a batch is about one transaction. */
const BATCH = 1_000;

let credits = 0;
let creditArrived: PromiseWithResolvers<void> | null = null;

function send(event: PepStreamEvent): void {
  self.postMessage(event);
}

async function sendRows(rows: EntityRow[]): Promise<void> {
  while (credits === 0) {
    creditArrived = Promise.withResolvers<void>();
    await creditArrived.promise;
  }
  credits--;
  send({ type: "rows", rows });
}

async function run(job: PepStreamJob): Promise<void> {
  const stats = newPepStreamStats();
  try {
    let batch: EntityRow[] = [];
    for await (const entity of streamPepJob(job, stats)) {
      batch.push(entityRow(entity));
      if (batch.length < BATCH) continue;
      await sendRows(batch);
      batch = [];
    }
    if (batch.length > 0) await sendRows(batch);
    send({ type: "end", stats });
  } catch (err) {
    send({ type: "error", error: describeStreamError(err) });
  }
}

self.addEventListener("message", (event: MessageEvent<PepStreamMessage>) => {
  const message = event.data;
  if (message.type === "start") {
    credits = message.credits;
    void run(message.job);
  } else {
    credits++;
    creditArrived?.resolve();
  }
});
