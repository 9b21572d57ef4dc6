import { statfsSync } from "node:fs";
import type { ReadinessCheck } from "@/http/deps";

/**
 * Below this much free space on the data folder's file system the appliance reports not ready: a
 * bulk of 1,000 screenings writes a few MiB (rows, outbox events, WAL frames before a checkpoint),
 * so writes are about to fail with "disk is full" (503 NOT_READY, nothing stored). Monitoring that
 * watches /readyz hears of it before screens are refused, not after.
 */
export const MIN_FREE_BYTES = 64 * 1024 * 1024;

/** Free bytes for an unprivileged writer on the file system holding `dir`; null when it cannot be read. */
export function freeBytes(dir: string): number | null {
  try {
    const stats = statfsSync(dir);
    return stats.bavail * stats.bsize;
  } catch {
    return null;
  }
}

const mib = (bytes: number) => `${Math.floor(bytes / (1024 * 1024)).toLocaleString("en-US")} MiB`;

/** The disk entry of /readyz: ready while at least MIN_FREE_BYTES are free (or the space cannot be read). */
export function diskCheck(free: number | null, minFree = MIN_FREE_BYTES): ReadinessCheck {
  if (free === null) return { name: "disk", ready: true, detail: "free space on the data folder's file system could not be read" };
  if (free >= minFree) return { name: "disk", ready: true, detail: `${mib(free)} free on the data folder's file system` };
  return {
    name: "disk",
    ready: false,
    detail: `only ${mib(free)} free on the data folder's file system (at least ${mib(minFree)} needed): screens will soon be refused with 503 "disk is full"; free space`,
  };
}
