import { waitAtMost } from "@/lib/wait-at-most";
import type { Server } from "bun";
import type { AnyElysia } from "elysia";
import type { BearerVerifier } from "@/auth/bearer";
import { bearerFromConfig } from "@/auth/bearer-from-config";
import { openContext } from "@/bootstrap";
import type { Config } from "@/config";
import type { AppContext } from "@/context";
import { ServiceError } from "@/errors";
import { createApp } from "@/http/app";
import { largestAcceptedBody } from "@/http/body-limits";
import type { HttpDeps, ReadinessCheck } from "@/http/deps";
import { idlePoller } from "@/http/idle-poll";
import { problemResponse } from "@/http/problem";
import { beginRequest } from "@/http/request-state";
import { routableRequest } from "@/http/routable-request";
import { Scheduler } from "@/jobs/scheduler";
import { createLogger, type Logger } from "@/lib/logger";
import { startCheckpointer } from "@/storage/checkpointer";
import { assertWritable, privateModeWarnings } from "@/storage/db";
import { diskCheck, freeBytes } from "@/storage/disk-space";
import { groupCommit } from "@/storage/group-commit";
import { bindKeyCheck } from "@/storage/master-key";
import { migrate } from "@/storage/migrate";
import type { LookupFn } from "@/webhooks/send-target";

export interface RunningServer {
  url: string;
  port: number;
  ctx: AppContext;
  scheduler: Scheduler;
  /** Stops accepting, lets in-flight requests finish, stops background loops, checkpoints and closes the database. */
  stop(): Promise<void>;
}

export interface ServerOptions {
  log?: Logger;
  bearer?: BearerVerifier | null;
  /** Capabilities added by later modules: their readiness checks, routes and background loops. */
  extensions?: ReadonlyArray<ServerExtension>;
  /** How the admin routes resolve a webhook receiver's host name; the system resolver by default (HttpDeps.receiverLookup). */
  receiverLookup?: LookupFn;
}

export interface ServerExtension {
  readiness?: () => ReadinessCheck;
  routes?: (deps: HttpDeps) => AnyElysia;
  start?: (ctx: AppContext, scheduler: Scheduler) => void | Promise<void>;
  stop?: () => void | Promise<void>;
}

/** How long a stop waits for the answers of screens committed as the group commit closes, before it cuts the connections. */
const LAST_ANSWERS_MS = 500;

/**
 * Listens first, then migrates: /healthz answers at once and /readyz reports 503 until storage is
 * migrated; API routes answer 503 NOT_READY meanwhile instead of failing on a half-built schema.
 */
export async function startServer(config: Config, options: ServerOptions = {}): Promise<RunningServer> {
  const log = options.log ?? createLogger(config.logLevel);
  const ctx = openContext(config, { log, migrate: false });
  const db = ctx.db;
  const extensions = options.extensions ?? [];
  let storageReady = false;
  const deps: HttpDeps = {
    ...ctx,
    bearer: options.bearer === undefined ? bearerFromConfig(config, log) : options.bearer,
    readiness: {
      checks: () => [
        { name: "storage", ready: storageReady, detail: storageReady ? "migrated" : "migrating" },
        diskCheck(freeBytes(config.dataDir)),
        ...extensions.flatMap((e) => (e.readiness ? [e.readiness()] : [])),
      ],
    },
    extraRoutes: extensions.flatMap((e) => (e.routes ? [e.routes] : [])),
    ...(options.receiverLookup ? { receiverLookup: options.receiverLookup } : {}),
  };
  const app = createApp(deps);
  const scheduler = new Scheduler(log);
  const poller = idlePoller(config.idlePollMs);

  const server: Server<undefined> = Bun.serve({
    hostname: config.host,
    port: config.port,
    // The app enforces per-route limits with problem bodies; this is the hard backstop for chunked
    // bodies, above the largest any route accepts (the list upload's, or bulk's 125 MiB).
    maxRequestBodySize: largestAcceptedBody(app, config) + 1024 * 1024,
    // Bun's default is 10 s, shorter than the idle timeout of the proxies and client pools in front of
    // the appliance: they would send a request on a connection this side was closing (config.ts).
    idleTimeout: config.keepAliveTimeoutSeconds,
    fetch(received) {
      poller.touch();
      const request = routableRequest(received);
      // The path is parsed only while migrating: once storage is ready, every request goes to the app.
      if (!storageReady) {
        const path = new URL(request.url).pathname;
        if (path !== "/healthz" && path !== "/readyz") {
          const state = beginRequest(request);
          return problemResponse(new ServiceError("NOT_READY", "Storage is being migrated; retry shortly."), path, state.correlationId);
        }
      }
      return app.handle(request);
    },
  });

  assertWritable(db.sqlite, db.path);
  const applied = migrate(db.sqlite);
  // Pairs master.key with a database that had no schema yet when the context opened (a new folder).
  bindKeyCheck(db, ctx.secrets, config.dataDir);
  // After migrating: the migrations ran with the connection's own checkpoints, as the CLI's do.
  const checkpointer = startCheckpointer(db, log);
  storageReady = true;
  log.info({ migrationsApplied: applied.applied, dataDir: config.dataDir }, "storage ready");
  if (config.dataDir !== ":memory:") for (const warning of privateModeWarnings(config.dataDir)) log.warn(warning);
  for (const extension of extensions) await extension.start?.(ctx, scheduler);
  scheduler.start();

  const url = `http://${server.hostname}:${server.port}`;
  let stopping: Promise<void> | null = null;
  return {
    url,
    port: server.port ?? config.port,
    ctx,
    scheduler,
    stop() {
      stopping ??= (async () => {
        const drained = server.stop(false);
        await waitAtMost(drained, config.shutdownGraceMs);
        await scheduler.stop();
        for (const extension of extensions) await extension.stop?.();
        // Requests past the grace period may still wait in the group commit for a lock another
        // process holds: they are answered 503 now, and nothing polls or commits after the close.
        // Those it could still commit (the lock freed meanwhile) are answered 200: their answers
        // are given a moment to be written before the connections are cut, or a client without an
        // Idempotency-Key would retry a screen that was stored and charged.
        groupCommit(db).close();
        await waitAtMost(drained, LAST_ANSWERS_MS);
        server.stop(true);
        await checkpointer?.stop();
        db.close();
        log.info("stopped");
      })();
      return stopping;
    },
  };
}
