/**
 * Long work on the server's one request thread, in pieces. Work written as a generator that yields
 * between steps can run whole (runSteps: the CLI, tests) or paced beside requests (runPaced: a list
 * reload in the serving process), with the same result.
 */

/** Lets queued I/O and timers run before going on; a resolved promise (a microtask) would not. */
export function yieldToEventLoop(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/** Runs a stepped computation to its end without pausing, and returns its result. */
export function runSteps<T>(steps: Generator<void, T>): T {
  for (;;) {
    const next = steps.next();
    if (next.done) return next.value;
  }
}

/** A pause that lets the event loop serve what waits (a timer, not a microtask). */
const letRequestsIn = () => new Promise((resolve) => setTimeout(resolve, 0));

/**
 * Runs steps to their end, letting requests in whenever `sliceMs` of them have run: a clock read per
 * step and a pause only when the slice is spent (an await per step would cost a microtask each, a
 * million of them for a large PEP list).
 */
export async function runPaced<T>(steps: Generator<void, T>, sliceMs: number): Promise<T> {
  let sliceStart = performance.now();
  for (let step = steps.next(); ; step = steps.next()) {
    if (step.done) return step.value;
    if (performance.now() - sliceStart >= sliceMs) {
      await letRequestsIn();
      sliceStart = performance.now();
    }
  }
}
