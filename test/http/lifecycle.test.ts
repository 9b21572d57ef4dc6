import { expect, test } from "bun:test";
import { join } from "node:path";
import { startTestServer } from "../helpers/server";

/** Stopping the server must release the process: no timer or handle may outlive stop(). */
const REPO = join(import.meta.dir, "..", "..");

test("after stop() the process exits at once, not after the 15 s shutdown grace", async () => {
  const started = performance.now();
  const proc = Bun.spawn([process.execPath, "run", join(REPO, "test/fixtures/server/start-stop.ts")], {
    cwd: REPO,
    stdout: "pipe",
    stderr: "pipe",
  });
  const [stdout, code] = await Promise.all([new Response(proc.stdout).text(), proc.exited]);
  const seconds = (performance.now() - started) / 1000;
  expect(stdout).toBe("status 200 grace 15000\nstopped\n");
  expect(code).toBe(0);
  expect(seconds).toBeLessThan(10);
}, 30_000);

/** CPU (user + system) the test process spent over `ms` of waiting, in milliseconds. */
async function cpuWhileWaiting(ms: number): Promise<number> {
  const before = process.cpuUsage();
  await Bun.sleep(ms);
  const used = process.cpuUsage(before);
  return (used.user + used.system) / 1000;
}

test("after a request the server keeps its loop polling for idlePollMs, then sleeps; 0 sleeps at once", async () => {
  const polling = await startTestServer({ flags: { idlePollMs: 100 } });
  const sleeping = await startTestServer({ flags: { idlePollMs: 0 } });
  try {
    expect((await fetch(`${polling.url}/healthz`)).status).toBe(200);
    const duringWindow = await cpuWhileWaiting(50);
    await Bun.sleep(100);
    const afterWindow = await cpuWhileWaiting(50);
    expect((await fetch(`${sleeping.url}/healthz`)).status).toBe(200);
    const withoutPolling = await cpuWhileWaiting(50);
    // Polling is the thread on a CPU for most of the window; sleeping is a few interrupts' worth.
    expect(duringWindow).toBeGreaterThan(25);
    expect(afterWindow).toBeLessThan(10);
    expect(withoutPolling).toBeLessThan(10);
  } finally {
    await polling.close();
    await sleeping.close();
  }
});
