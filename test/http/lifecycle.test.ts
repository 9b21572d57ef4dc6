import { expect, test } from "bun:test";
import { join } from "node:path";

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
