import { describe, expect, test } from "bun:test";
import { Scheduler } from "@/jobs/scheduler";
import { createLogger } from "@/lib/logger";

/** The in-process scheduler's wake-ups, with a loop whose interval is far longer than the test. */
describe("Scheduler.wake", () => {
  test("a wake during a round runs one more round right after it instead of waiting out the interval", async () => {
    const scheduler = new Scheduler(createLogger("silent"));
    let rounds = 0;
    let release: () => void = () => undefined;
    scheduler.register({
      name: "work",
      intervalMs: 60_000,
      async tick() {
        rounds++;
        // The first round is slow; wakes arrive while it runs.
        if (rounds === 1) await new Promise<void>((resolve) => (release = resolve));
        return false;
      },
    });
    scheduler.start();
    await Bun.sleep(10);
    expect(rounds).toBe(1);
    scheduler.wake("work");
    scheduler.wake("work");
    release();
    await Bun.sleep(30);
    // Two wakes during one round: one extra round, not zero (lost) and not two.
    expect(rounds).toBe(2);
    scheduler.wake("work");
    await Bun.sleep(30);
    expect(rounds).toBe(3);
    await scheduler.stop();
  });
});

describe("Scheduler.stop", () => {
  test("waits for what a loop's rounds left to settle after they returned", async () => {
    const scheduler = new Scheduler(createLogger("silent"));
    const committed: number[] = [];
    const pending = new Set<Promise<void>>();
    let rounds = 0;
    scheduler.register({
      name: "work",
      intervalMs: 60_000,
      async tick() {
        const round = ++rounds;
        // The round returns at once; its record lands 30 ms later, as the dispatcher's attempt records do.
        const record = Bun.sleep(30).then(() => {
          committed.push(round);
        });
        pending.add(record);
        return false;
      },
      async settle() {
        await Promise.allSettled(pending);
      },
    });
    scheduler.start();
    await Bun.sleep(5);
    expect(committed).toEqual([]);
    await scheduler.stop();
    expect(committed).toEqual([1]);
  });
});
