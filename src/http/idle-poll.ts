/**
 * Keeps the event loop polling for a short while after each request arrives instead of going to sleep.
 *
 * Why: under a steady load most requests arrive while the main thread sleeps in the kernel's poll.
 * Waking it costs a context switch, and the request then runs on caches that the processes which
 * ran meanwhile have evicted: on the two-vCPU reference machine a lone request cost the main thread
 * three to four times what the same request costs under saturation (docs/benchmark-log.md, "A lone
 * request costs more"). A pending `setImmediate` makes the event loop poll its sockets with a zero
 * timeout, so while one is kept pending the next request is picked up by a thread that is still
 * running. The window restarts at every request and lapses `windowMs` after the last one, so an idle
 * server sleeps exactly as before: the polling costs CPU only while requests keep arriving, the
 * trade a polling reactor such as Seastar's (its idle-poll time) makes too.
 */
export interface IdlePoller {
  /** A request arrived: keep polling until `windowMs` after now. */
  touch(): void;
  /** Whether the loop is being kept polling right now. */
  readonly polling: boolean;
  /** Event-loop turns spent polling so far (for tests and diagnostics). */
  readonly turns: number;
}

export function idlePoller(windowMs: number): IdlePoller {
  let pollUntil = 0;
  let polling = false;
  let turns = 0;
  const turn = (): void => {
    turns++;
    if (performance.now() < pollUntil) setImmediate(turn);
    else polling = false;
  };
  return {
    touch() {
      if (windowMs <= 0) return;
      pollUntil = performance.now() + windowMs;
      if (polling) return;
      polling = true;
      setImmediate(turn);
    },
    get polling() {
      return polling;
    },
    get turns() {
      return turns;
    },
  };
}
