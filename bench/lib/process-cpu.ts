import { readFileSync } from "node:fs";

/**
 * CPU time of another process, from Linux's /proc: the whole process (every thread) and its main
 * thread alone. The server's main thread runs every request's JavaScript, so its busy share during
 * a phase is the utilisation that queueing latency depends on; the process total adds the threads
 * that work beside it (WAL checkpoints, the HTTP client's sockets, the JIT, the collector's helpers).
 * The machine's idle time beside them tells whether that thread or the machine is the limit. Two
 * more say why a thread that had work was not running it: the main thread's run-queue wait (it was
 * runnable, and another task of this machine had the CPU) and the machine's steal time (the
 * hypervisor ran another guest on a CPU this machine was using).
 */
export interface CpuSample {
  processMs: number;
  mainThreadMs: number;
  /** Idle time of the whole machine, every CPU summed (idle + iowait of /proc/stat's first line). */
  machineIdleMs: number;
  /** Steal time of the whole machine, every CPU summed (/proc/stat's first line). */
  machineStealMs: number;
  /** Time the main thread was runnable but waiting for a CPU (/proc/<pid>/task/<pid>/schedstat); null without schedstats. */
  mainThreadWaitMs: number | null;
}

/** What a phase cost the server: busy shares of one core, and main-thread milliseconds per request. */
export interface PhaseCpu {
  /** Main thread's busy share of the phase's wall time, 0-1. */
  mainThreadBusy: number;
  /** Whole process, in cores (can pass 1). */
  processCores: number;
  /** Main-thread CPU per completed request, ms. */
  mainThreadMsPerRequest: number;
  /**
   * CPUs of the whole machine that nothing used, in cores. With the main thread near 100% busy and
   * cores to spare, the one JavaScript thread bounds the capacity, not the machine: work moved off
   * that thread would raise it.
   */
  machineIdleCores: number;
  /** CPUs of the machine the hypervisor gave to other guests, in cores. */
  machineStealCores: number;
  /** Share of the phase the main thread was runnable and waiting for a CPU, 0-1; null without schedstats. */
  mainThreadWaiting: number | null;
}

/** Linux reports these times in clock ticks of USER_HZ, which is 100 on every Linux ABI Bun runs on. */
const TICK_MS = 10;

/** utime + stime (fields 14 and 15) of a /proc stat line, in ms; the command name may contain spaces, so count from its ')'. */
function statMs(path: string): number {
  const text = readFileSync(path, "utf8");
  const fields = text.slice(text.lastIndexOf(")") + 2).split(" ");
  return (Number(fields[11]) + Number(fields[12])) * TICK_MS;
}

/** idle + iowait, and steal, of the aggregate "cpu" line (cpu user nice system idle iowait irq softirq steal ...), in ms. */
function machineTimes(): { idleMs: number; stealMs: number } {
  const text = readFileSync("/proc/stat", "utf8");
  const fields = text.slice(0, text.indexOf("\n")).trim().split(/\s+/);
  return { idleMs: (Number(fields[4]) + Number(fields[5])) * TICK_MS, stealMs: Number(fields[8] ?? 0) * TICK_MS };
}

/**
 * The run-queue wait of a thread (schedstat's second field, ns), in ms; null where the kernel keeps
 * no schedstats: no file, or zeros for a thread that has run (its first field, time on a CPU).
 */
function runQueueWaitMs(path: string): number | null {
  try {
    const [onCpu, wait] = readFileSync(path, "utf8").split(" ").map(Number);
    return onCpu && Number.isFinite(wait) ? (wait ?? 0) / 1e6 : null;
  } catch {
    return null;
  }
}

/** null where /proc is missing (not Linux) or the process is gone: the bench then prints no CPU columns. */
export function sampleCpu(pid: number): CpuSample | null {
  try {
    const machine = machineTimes();
    return {
      processMs: statMs(`/proc/${pid}/stat`),
      mainThreadMs: statMs(`/proc/${pid}/task/${pid}/stat`),
      machineIdleMs: machine.idleMs,
      machineStealMs: machine.stealMs,
      mainThreadWaitMs: runQueueWaitMs(`/proc/${pid}/task/${pid}/schedstat`),
    };
  } catch {
    return null;
  }
}

export function phaseCpu(before: CpuSample | null, after: CpuSample | null, wallMs: number, requests: number): PhaseCpu | null {
  if (!before || !after || wallMs <= 0) return null;
  const main = after.mainThreadMs - before.mainThreadMs;
  return {
    mainThreadBusy: main / wallMs,
    processCores: (after.processMs - before.processMs) / wallMs,
    mainThreadMsPerRequest: requests > 0 ? main / requests : Number.NaN,
    machineIdleCores: (after.machineIdleMs - before.machineIdleMs) / wallMs,
    machineStealCores: (after.machineStealMs - before.machineStealMs) / wallMs,
    mainThreadWaiting: before.mainThreadWaitMs === null || after.mainThreadWaitMs === null ? null : (after.mainThreadWaitMs - before.mainThreadWaitMs) / wallMs,
  };
}

/** Runs a load phase and adds what it cost the server `pid` (serverCpu null where /proc cannot be read). */
export async function measuredPhase<P extends { seconds: number; requests: number }>(pid: number, run: () => Promise<P>): Promise<P & { serverCpu: PhaseCpu | null }> {
  const before = sampleCpu(pid);
  const phase = await run();
  return { ...phase, serverCpu: phaseCpu(before, sampleCpu(pid), phase.seconds * 1000, phase.requests) };
}
