/**
 * HTTP load generation for the benchmarks, in two models.
 *
 * CLOSED loop: N clients, each sending its next request as soon as the previous answer arrived. It
 * finds the server's capacity, but its latency is not a latency measurement: with N requests always
 * in flight, Little's law fixes the mean latency at N / throughput, however fast a single request is.
 *
 * OPEN loop (as wrk2 does it): requests are due at a fixed aggregate rate, request i at
 * start + i / rate, whatever the answers do; at most N are in flight. A request that is due while
 * all N are busy waits for one to free up, and its latency counts from the moment it was DUE, so a
 * stall shows up in every request it held back instead of in one sample (coordinated omission).
 */
import { percentile } from "./stats";

/**
 * Sends one request: `true` when it succeeded (the caller decides what success is), otherwise a short
 * description of the failure ("HTTP 500 ...") so that a phase's errors can be told apart.
 */
export type Send = () => Promise<true | string>;

export interface PhaseResult {
  label: string;
  model: "closed" | "open";
  clients: number;
  /** Open loop: the aggregate arrival rate asked for, requests/s. */
  targetRate: number | null;
  seconds: number;
  requests: number;
  errors: number;
  /** The errors by description, most frequent first (empty when there were none). */
  errorKinds: Array<{ kind: string; count: number }>;
  /** Completed requests per second. */
  throughput: number;
  p50: number;
  p90: number;
  p99: number;
  max: number;
  /**
   * Open loop: p99 of how late the generator's own timer sent requests that found a free connection
   * (those are timed from the actual send). Large values mean the generator, not the server, lagged.
   */
  timerLagP99: number | null;
}

function summarise(
  base: Pick<PhaseResult, "label" | "model" | "clients" | "targetRate">,
  latencies: number[],
  errors: Map<string, number>,
  elapsedMs: number,
  timerLags: number[] | null,
): PhaseResult {
  latencies.sort((a, b) => a - b);
  timerLags?.sort((a, b) => a - b);
  return {
    ...base,
    seconds: elapsedMs / 1000,
    requests: latencies.length,
    errors: [...errors.values()].reduce((n, count) => n + count, 0),
    errorKinds: [...errors].map(([kind, count]) => ({ kind, count })).sort((a, b) => b.count - a.count),
    throughput: (latencies.length / elapsedMs) * 1000,
    p50: percentile(latencies, 50),
    p90: percentile(latencies, 90),
    p99: percentile(latencies, 99),
    max: latencies[latencies.length - 1] ?? Number.NaN,
    timerLagP99: timerLags ? percentile(timerLags, 99) : null,
  };
}

/** Runs one send and counts a failure under its description; a thrown error is a failure too. */
async function attempt(send: Send, errors: Map<string, number>): Promise<void> {
  let outcome: true | string;
  try {
    outcome = await send();
  } catch (err) {
    outcome = `request failed: ${err instanceof Error ? err.message : String(err)}`;
  }
  if (outcome !== true) errors.set(outcome, (errors.get(outcome) ?? 0) + 1);
}

/** `clients` clients with zero think time for `seconds`: the server's capacity under this generator. */
export async function closedLoop(label: string, send: Send, clients: number, seconds: number): Promise<PhaseResult> {
  const latencies: number[] = [];
  const errors = new Map<string, number>();
  const started = performance.now();
  const deadline = started + seconds * 1000;
  const client = async () => {
    while (performance.now() < deadline) {
      const t0 = performance.now();
      await attempt(send, errors);
      latencies.push(performance.now() - t0);
    }
  };
  await Promise.all(Array.from({ length: clients }, client));
  return summarise({ label, model: "closed", clients, targetRate: null }, latencies, errors, performance.now() - started, null);
}

/** Requests due at `rate` per second for `seconds`, at most `clients` in flight, timed from when each was due. */
export async function openLoop(label: string, send: Send, clients: number, rate: number, seconds: number): Promise<PhaseResult> {
  const latencies: number[] = [];
  const timerLags: number[] = [];
  const errors = new Map<string, number>();
  const total = Math.max(1, Math.round(rate * seconds));
  const intervalMs = 1000 / rate;
  const started = performance.now();
  let next = 0;
  const connection = async () => {
    for (;;) {
      const i = next++;
      if (i >= total) return;
      const due = started + i * intervalMs;
      const wait = due - performance.now();
      // A request that found this connection free waited for its due time; the timer's own lateness is
      // the generator's, so it is timed from the actual send. One that was due while every connection
      // was busy is timed from its due time: the wait it suffered is latency a real client would see.
      let from = due;
      if (wait > 0) {
        await Bun.sleep(wait);
        from = performance.now();
        timerLags.push(from - due);
      }
      await attempt(send, errors);
      latencies.push(performance.now() - from);
    }
  };
  await Promise.all(Array.from({ length: clients }, connection));
  return summarise({ label, model: "open", clients, targetRate: rate }, latencies, errors, performance.now() - started, timerLags);
}
