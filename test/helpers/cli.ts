import { join } from "node:path";

const REPO = join(import.meta.dir, "..", "..");

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * Runs the real CLI (src/main.ts under Bun) as a separate process, as an operator would. timeoutMs
 * kills it (SIGKILL, code 137) for commands that may wrongly keep running, such as `serve`.
 */
export async function runCli(args: string[], options: { dataDir: string; env?: Record<string, string>; timeoutMs?: number }): Promise<CliResult> {
  const proc = Bun.spawn([process.execPath, "run", join(REPO, "src/main.ts"), "--data-dir", options.dataDir, ...args], {
    cwd: REPO,
    ...(options.timeoutMs === undefined ? {} : { timeout: options.timeoutMs, killSignal: "SIGKILL" }),
    env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "/tmp", TZ: "UTC", ...(options.env ?? {}) },
    stdout: "pipe",
    stderr: "pipe",
  });
  const [stdout, stderr, code] = await Promise.all([
    new Response(proc.stdout).text(),
    new Response(proc.stderr).text(),
    proc.exited,
  ]);
  return { code, stdout, stderr };
}

/**
 * `aml serve` as a separate process on a free loopback port, once its banner says it is listening.
 * `env` adds to (or overrides) its environment, e.g. AML_LOG_LEVEL for a test of the access log;
 * `flags` are more `serve` options, e.g. --demo to screen against the demo list.
 */
export async function spawnServe(
  dataDir: string,
  env: Record<string, string> = {},
  flags: string[] = [],
): Promise<{ url: string; banner: string; stop(): Promise<number> }> {
  const proc = Bun.spawn([process.execPath, "run", join(REPO, "src/main.ts"), "--data-dir", dataDir, "serve", "--host", "127.0.0.1", "--port", "0", ...flags], {
    cwd: REPO,
    env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "/tmp", TZ: "UTC", AML_LOG_LEVEL: "silent", ...env },
    stdout: "ignore",
    stderr: "pipe",
  });
  const stop = async () => {
    proc.kill("SIGTERM");
    return proc.exited;
  };
  let seen = "";
  const decoder = new TextDecoder();
  for await (const chunk of proc.stderr) {
    seen += decoder.decode(chunk, { stream: true });
    // The banner is one write, so the chunk with the listening line holds the whole of it.
    const url = seen.match(/aml listening on (http:\/\/\S+)/)?.[1];
    if (url) return { url, banner: seen, stop };
  }
  throw new Error(`aml serve exited with ${await proc.exited} before listening: ${seen}`);
}
