import type { Logger } from "@/lib/logger";

/**
 * One in-process scheduler for background loops (webhook outbox, batch jobs, monitoring, list
 * reloads). Each loop claims its work from durable tables, so the scheduler itself holds no state
 * worth saving: stopping it only waits for the running iteration, and what it left to settle, to finish.
 */
export interface Loop {
  name: string;
  intervalMs: number;
  /** Does one round of work; returns true when there may be more, to run again without waiting. */
  tick(signal: AbortSignal): Promise<boolean>;
  /**
   * Resolves once work that rounds started but did not wait for has finished. For the webhook
   * dispatcher that is its POSTs still in flight (a round ends once its claim commits, without
   * waiting for them) and then their attempt records, which commit in the background once the POSTs
   * have ended (answered or timed out). stop() waits for it, so nothing a round started is still in
   * flight or uncommitted when the database closes.
   */
  settle?(): Promise<void>;
}

export class Scheduler {
  private readonly loops: Loop[] = [];
  private readonly running = new Map<string, Promise<void>>();
  private readonly wakers = new Map<string, () => void>();
  /** Loops woken while running a round: their next sleep returns at once, so the wake is not lost. */
  private readonly wokenWhileBusy = new Set<string>();
  private readonly controller = new AbortController();
  private started = false;

  constructor(private readonly log: Logger) {}

  register(loop: Loop): void {
    if (this.started) throw new Error("register loops before start()");
    this.loops.push(loop);
  }

  start(): void {
    this.started = true;
    for (const loop of this.loops) this.running.set(loop.name, this.run(loop));
  }

  /**
   * Runs a loop's next round now (e.g. right after a commit that created work for it). A loop in the
   * middle of a round runs another one right after it: the work may have been committed after the
   * round claimed its share. Many wakes during one round make one extra round, which claims the
   * work of all of them together.
   */
  wake(name: string): void {
    const waker = this.wakers.get(name);
    if (waker) waker();
    else this.wokenWhileBusy.add(name);
  }

  async stop(): Promise<void> {
    this.controller.abort();
    for (const wake of this.wakers.values()) wake();
    await Promise.allSettled(this.running.values());
    await Promise.allSettled(this.loops.map((loop) => loop.settle?.()));
  }

  private async run(loop: Loop): Promise<void> {
    const signal = this.controller.signal;
    while (!signal.aborted) {
      let more = false;
      try {
        more = await loop.tick(signal);
      } catch (error) {
        this.log.error({ loop: loop.name, err: error }, "background loop failed; retrying after its interval");
      }
      if (signal.aborted) break;
      if (!more) await this.sleep(loop);
    }
  }

  private sleep(loop: Loop): Promise<void> {
    if (this.wokenWhileBusy.delete(loop.name)) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(done, loop.intervalMs);
      const wakers = this.wakers;
      function done() {
        clearTimeout(timer);
        wakers.delete(loop.name);
        resolve();
      }
      wakers.set(loop.name, done);
    });
  }
}
