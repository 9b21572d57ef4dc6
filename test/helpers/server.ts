import { afterAll } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { BearerVerifier } from "@/auth/bearer";
import { type Config, loadConfig } from "@/config";
import { createLogger, type Logger } from "@/lib/logger";
import { type RunningServer, type ServerExtension, startServer } from "@/server";
import type { LookupFn } from "@/webhooks/send-target";

/**
 * Test strategy: every HTTP test starts the real server on a loopback port (port 0 = a free one)
 * over a real SQLite file in a fresh temp data folder, and talks to it with fetch. Nothing of ours
 * is mocked; each test creates its own tenants.
 */
export interface TestServer extends RunningServer {
  dataDir: string;
  config: Config;
  /** Stops the server and removes its data folder. */
  close(): Promise<void>;
}

export interface TestServerOptions {
  env?: Record<string, string>;
  flags?: Record<string, unknown>;
  bearer?: BearerVerifier | null;
  extensions?: ServerExtension[];
  dataDir?: string;
  /** How the admin routes resolve a webhook receiver's host name (default: the system resolver). */
  receiverLookup?: LookupFn;
  /** The server's logger (default: one at the config's level, "silent" unless flags say otherwise). */
  log?: Logger;
}

export function tempDataDir(prefix = "aml-test-"): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

/**
 * For a test file's top level: a function giving a new temp folder each call (tempDataDir), every
 * one removed once the file's tests have run.
 */
export function tempDirsRemovedAfterAll(prefix: string): () => string {
  const dirs: string[] = [];
  afterAll(() => {
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });
  return () => {
    const dir = tempDataDir(prefix);
    dirs.push(dir);
    return dir;
  };
}

export async function startTestServer(options: TestServerOptions = {}): Promise<TestServer> {
  const dataDir = options.dataDir ?? tempDataDir();
  const config = loadConfig({
    env: options.env ?? {},
    flags: { dataDir, host: "127.0.0.1", port: 0, logLevel: "silent", ...(options.flags ?? {}) },
  });
  const server = await startServer(config, {
    log: options.log ?? createLogger(config.logLevel),
    ...(options.bearer === undefined ? {} : { bearer: options.bearer }),
    extensions: options.extensions ?? [],
    ...(options.receiverLookup ? { receiverLookup: options.receiverLookup } : {}),
  });
  return {
    ...server,
    dataDir,
    config,
    async close() {
      await server.stop();
      if (!options.dataDir) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
