import { describe, expect, test } from "bun:test";
import { idlePoller } from "@/http/idle-poll";

/** The idle poller keeps the event loop turning for its window after each touch, and no longer. */
describe("idlePoller", () => {
  test("a touch keeps the loop polling for the window, then it lapses", async () => {
    const poller = idlePoller(30);
    expect(poller.polling).toBe(false);
    poller.touch();
    expect(poller.polling).toBe(true);
    await Bun.sleep(10);
    expect(poller.polling).toBe(true);
    // Polling means turning the loop without sleeping: many turns in 10 ms, not one.
    expect(poller.turns).toBeGreaterThan(20);
    await Bun.sleep(60);
    expect(poller.polling).toBe(false);
    const lapsedAt = poller.turns;
    await Bun.sleep(20);
    expect(poller.turns).toBe(lapsedAt);
  });

  test("every touch restarts the window", async () => {
    const poller = idlePoller(40);
    poller.touch();
    for (let i = 0; i < 4; i++) {
      await Bun.sleep(25);
      poller.touch();
    }
    // 100 ms after the first touch, 40 ms windows would have lapsed twice without the later touches.
    expect(poller.polling).toBe(true);
    await Bun.sleep(80);
    expect(poller.polling).toBe(false);
  });

  test("timers and sockets are still served while the loop polls", async () => {
    const poller = idlePoller(200);
    const server = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response("ok") });
    try {
      poller.touch();
      const started = performance.now();
      await new Promise((resolve) => setTimeout(resolve, 5));
      const timerLate = performance.now() - started - 5;
      const response = await fetch(`http://127.0.0.1:${server.port}/`);
      expect(await response.text()).toBe("ok");
      expect(poller.polling).toBe(true);
      expect(timerLate).toBeLessThan(50);
    } finally {
      server.stop(true);
    }
  });

  test("a window of 0 never polls: the loop sleeps at once", async () => {
    const poller = idlePoller(0);
    poller.touch();
    expect(poller.polling).toBe(false);
    await Bun.sleep(5);
    expect(poller.turns).toBe(0);
  });
});
