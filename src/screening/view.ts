import type { ScreeningRecord } from "./types";

/**
 * The screening as HTTP returns it. Every JSON body's `correlationId` is the current request's (an
 * app-wide convention applied when the response is written), so the id of the request that created
 * the screening travels as `screeningCorrelationId`.
 */
export function screeningView(record: ScreeningRecord) {
  const { correlationId, ...rest } = record;
  return { ...rest, screeningCorrelationId: correlationId };
}
