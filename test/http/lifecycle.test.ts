import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
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

/**
 * Time the main thread (which runs the in-process servers' event loop) spent on a CPU over `ms` of
 * waiting, in milliseconds. Read from the thread's schedstat (nanoseconds), not process.cpuUsage():
 * the whole process also counts the collector's and the JIT's threads, whose work left over from
 * earlier test files made the sleeping loop look busy (16 ms in 50 in one full run). Falls back to
 * the whole process where schedstat cannot be read.
 */
const MAIN_THREAD_SCHEDSTAT = `/proc/self/task/${process.pid}/schedstat`;
function mainThreadCpuMs(): number | null {
  try {
    const onCpuNs = Number(readFileSync(MAIN_THREAD_SCHEDSTAT, "utf8").split(" ")[0]);
    // A kernel without schedstats reads "0 0 0" for a thread that has surely run: unusable.
    return onCpuNs > 0 ? onCpuNs / 1e6 : null;
  } catch {
    return null;
  }
}
async function cpuWhileWaiting(ms: number): Promise<number> {
  const threadBefore = mainThreadCpuMs();
  const processBefore = process.cpuUsage();
  await Bun.sleep(ms);
  const threadAfter = mainThreadCpuMs();
  if (threadBefore !== null && threadAfter !== null) return threadAfter - threadBefore;
  const used = process.cpuUsage(processBefore);
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
