/**
 * The HTTP bench's baseline: the least a single-threaded server can do for a screen. In a process
 * of its own, like the appliance, it reads each request's body, keeps its one JavaScript thread busy
 * for the time the request asks for (`x-baseline-cpu-ms`, at most 50: the appliance's own
 * main-thread CPU per request in the closed loop) and answers a fixed JSON body of
 * `x-baseline-bytes` bytes (at most 1 MiB: the size of the appliance's answer).
 *
 * The busy loop runs on the wall clock: Linux counts a thread's CPU time in scheduler ticks
 * (process.threadCpuUsage() advanced in 4-10 ms steps, and a spin on it cost 3.6 ms a request), so
 * there is no finer CPU clock to spin on. Time the thread spends preempted or stolen inside the loop
 * therefore counts as work done: in a contended minute the baseline does less than the appliance's
 * cost and is flattered, so its misses are the machine's all the more.
 *
 * It stores, matches and delivers nothing, and has no collector work to speak of, so its tail at a
 * given rate is what this machine, this generator and the cost alone allow. Prints its port.
 */
import { loadConfig } from "../../src/config";

const bodies = new Map<number, string>();
function answer(bytes: number): string {
  let body = bodies.get(bytes);
  if (body === undefined) {
    const envelope = '{"pad":""}';
    body = `{"pad":"${"x".repeat(Math.max(0, bytes - envelope.length))}"}`;
    bodies.set(bytes, body);
  }
  return body;
}

const server = Bun.serve({
  hostname: "127.0.0.1",
  port: 0,
  // The appliance's keepAliveTimeoutSeconds, from the same environment: the generator's pooled connections stay open.
  idleTimeout: loadConfig().keepAliveTimeoutSeconds,
  async fetch(request) {
    await request.text();
    const cpuMs = Math.min(50, Math.max(0, Number(request.headers.get("x-baseline-cpu-ms") ?? 0) || 0));
    const bytes = Math.min(1 << 20, Math.max(0, Number(request.headers.get("x-baseline-bytes") ?? 0) || 0));
    const until = performance.now() + cpuMs;
    while (performance.now() < until) {
      // The work a screen would do, as CPU time on this thread.
    }
    return new Response(answer(bytes), { headers: { "content-type": "application/json" } });
  },
});
process.stdout.write(`${server.port}\n`);
