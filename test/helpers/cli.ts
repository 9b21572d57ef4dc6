import { join } from "node:path";

const REPO = join(import.meta.dir, "..", "..");

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs the real CLI (src/main.ts under Bun) as a separate process, as an operator would. */
export async function runCli(args: string[], options: { dataDir: string; env?: Record<string, string> }): Promise<CliResult> {
  const proc = Bun.spawn([process.execPath, "run", join(REPO, "src/main.ts"), "--data-dir", options.dataDir, ...args], {
    cwd: REPO,
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
