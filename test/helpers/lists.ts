import { randomBytes } from "node:crypto";
import { readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import type { BearerVerifier } from "@/auth/bearer";
import { loadConfig } from "@/config";
import type { AppContext } from "@/context";
import { type Clock, systemClock } from "@/lib/clock";
import { createLogger } from "@/lib/logger";
import { createSecretBox } from "@/lib/secret-box";
import { startIndex, type MatchIndex } from "@/matching/index";
import { screeningExtension } from "@/screening/extension";
import type { ServerExtension } from "@/server";
import { type Db, openDb } from "@/storage/db";
import { type WatchlistExtension, watchlistExtension } from "@/watchlists/extension";
import { importListFiles, type ListFile } from "@/watchlists/import";
import { type LoadedLists, WatchlistRuntime } from "@/watchlists/runtime";
import { type WebhookExtension, type WebhookExtensionOptions, webhookExtension } from "@/webhooks/extension";
import { startTestServer, type TestServer, tempDataDir } from "./server";

/**
 * Fixture strategy for screening: a few FICTIONAL entities written in an official format (OFAC's
 * legacy CSV set, test/screening/fixtures), imported through the real importers, so tests exercise
 * detection, parsing, storage, index build and matching exactly as production does.
 */
export const SCREENING_FIXTURES = join(import.meta.dir, "..", "screening", "fixtures");

export function fixtureFiles(names: readonly string[] = ["sdn.csv", "alt.csv"], dir = SCREENING_FIXTURES): ListFile[] {
  return names.map((name) => ({ name, bytes: readFileSync(join(dir, name)) }));
}

/**
 * For tests of domain verbs, below HTTP: an appliance context on an in-memory database with the
 * fixture lists imported and loaded (close ctx.db when done).
 */
export async function inMemoryListContext(clock: Clock = systemClock): Promise<{ ctx: AppContext; lists: LoadedLists<MatchIndex> }> {
  const ctx: AppContext = {
    db: openDb(":memory:"),
    config: loadConfig({ env: {}, flags: { logLevel: "silent" } }),
    clock,
    log: createLogger("silent"),
    secrets: createSecretBox(randomBytes(32)),
  };
  await importListFiles(ctx.db, fixtureFiles(), { actor: { type: "cli", id: "test" } });
  const runtime = new WatchlistRuntime(ctx.db, startIndex, ctx.log);
  await runtime.refresh();
  const lists = runtime.current();
  if (!lists) throw new Error("the fixture lists did not load");
  return { ctx, lists };
}

/** An OFAC main file (sdn.csv) with extra fictional individuals appended: a new list version. */
export function ofacFilesWith(extra: ReadonlyArray<{ id: number; name: string }>): ListFile[] {
  const base = readFileSync(join(SCREENING_FIXTURES, "sdn.csv"), "utf8");
  const lines = extra.map((e) => `${e.id},"${e.name}","individual","[SDGT]",-0- ,-0- ,-0- ,-0- ,-0- ,-0- ,-0- ,-0- \r\n`).join("");
  return [{ name: "sdn.csv", bytes: new TextEncoder().encode(base + lines) }, ...fixtureFiles(["alt.csv"])];
}

export interface ListServer {
  server: TestServer;
  watchlists: WatchlistExtension<MatchIndex>;
  webhooks: WebhookExtension;
  close(): Promise<void>;
}

export interface ListServerOptions {
  /** List files imported into the data folder before the server starts (default: the fixtures). */
  files?: ListFile[] | null;
  /** Demo files seeded on first start, as `aml serve` does. */
  demoFiles?: () => ListFile[];
  webhooks?: WebhookExtensionOptions;
  flags?: Record<string, unknown>;
  env?: Record<string, string>;
  /** The server's bearer verifier (default: from the config, none without an issuer). */
  bearer?: BearerVerifier | null;
}

/** Fast retries and polling so webhook assertions settle in well under a second. */
export const FAST_WEBHOOKS: WebhookExtensionOptions = { retryDelaysMs: [50, 100, 150], maxAttempts: 10, intervalMs: 25, leaseMs: 5_000 };

/** Builds `aml serve`'s extensions (watchlists, webhooks, screening) with test-friendly timings. */
export function allExtensions(options: Pick<ListServerOptions, "demoFiles" | "webhooks"> = {}) {
  const watchlists = watchlistExtension(startIndex, { pollMs: 100, ...(options.demoFiles ? { demoFiles: options.demoFiles } : {}) });
  const webhooks = webhookExtension(options.webhooks ?? FAST_WEBHOOKS);
  const extensions: ServerExtension[] = [watchlists, webhooks, screeningExtension(watchlists, { announce: () => webhooks.wake() })];
  return { watchlists, webhooks, extensions };
}

/** The real server with every extension, on a data folder where `files` were imported first. */
export async function startListServer(options: ListServerOptions = {}): Promise<ListServer> {
  const dataDir = tempDataDir("aml-screening-");
  const files = options.files === undefined ? fixtureFiles() : options.files;
  if (files) {
    const db = openDb(dataDir);
    try {
      await importListFiles(db, files, { actor: { type: "cli", id: "test" } });
    } finally {
      db.close();
    }
  }
  const { watchlists, webhooks, extensions } = allExtensions(options);
  const server = await startTestServer({
    dataDir,
    extensions,
    env: options.env ?? {},
    ...(options.bearer === undefined ? {} : { bearer: options.bearer }),
    flags: { webhooks: { allowPrivateNetworks: ["127.0.0.1"], timeoutMs: 2_000 }, ...(options.flags ?? {}) },
  });
  return {
    server,
    watchlists,
    webhooks,
    async close() {
      await server.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** POSTs list files to the admin upload as one multipart form, each part named "file". */
export async function uploadLists(serverUrl: string, token: string, files: readonly ListFile[], query = ""): Promise<Response> {
  const form = new FormData();
  for (const file of files) form.append("file", new Blob([file.bytes]), file.name);
  return fetch(`${serverUrl}/v1/lists/import${query}`, { method: "POST", headers: { authorization: `Bearer ${token}` }, body: form });
}

/** Every list_entities row, of every version and of none (an import's orphans). */
export function listEntityRows(db: Db): number {
  return db.sqlite.query<{ n: number }, []>("SELECT count(*) AS n FROM list_entities").get()?.n ?? 0;
}
