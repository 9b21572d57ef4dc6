import { existsSync, readFileSync } from "node:fs";
import { resolve } from "node:path";
import { z } from "zod";
import { allowListEntryProblem } from "@/webhooks/url-policy";

/**
 * The one typed configuration object. Sources, later ones winning:
 * built-in defaults < JSON config file (--config / AML_CONFIG) < AML_* environment < command-line flags.
 * This is the only module that reads process.env; everything else receives a frozen Config.
 */
const LogLevel = z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]);

export const ConfigSchema = z
  .object({
    host: z.string().min(1).default("127.0.0.1").describe("Address the HTTP server binds to."),
    port: z.coerce.number().int().min(0).max(65535).default(8080).describe("TCP port; 0 picks a free port."),
    dataDir: z.string().min(1).default("./data").describe("Folder holding aml.db and imported list files."),
    logLevel: LogLevel.default("info"),
    maxJsonBodyBytes: z.coerce
      .number()
      .int()
      .min(1024)
      .default(4 * 1024 * 1024)
      .describe("Largest JSON request body accepted; larger bodies get 413."),
    maxUploadBytes: z.coerce
      .number()
      .int()
      .min(1024)
      .default(128 * 1024 * 1024)
      .describe("Largest multipart upload (batch files, list files) accepted; larger bodies get 413."),
    shutdownGraceMs: z.coerce.number().int().min(0).default(15_000),
    idlePollMs: z.coerce
      .number()
      .min(0)
      .max(100)
      .default(1)
      .describe(
        "The main thread keeps polling for requests until this long after the last one arrived, instead of sleeping: lower latency under a steady load, at the price of CPU while requests keep arriving. 0: sleep at once.",
      ),
    durability: z
      .enum(["checkpoint", "commit"])
      .default("checkpoint")
      .describe(
        "When an acknowledged write is safe from a power loss or an operating-system crash. checkpoint (SQLite synchronous=NORMAL): every commit is in the WAL before it is acknowledged, so a process crash or kill loses nothing; the WAL is synced to the disk by the checkpoint that follows, every 20 ms while writes flow, so a power loss can lose the commits of that last moment (the database stays consistent). commit (synchronous=FULL): every commit is synced before it is acknowledged, at the price of one fsync per group commit on the main thread.",
      ),
    keepAliveTimeoutSeconds: z.coerce
      .number()
      .int()
      .min(1)
      .max(255)
      .default(75)
      .describe(
        "How long a connection may go without traffic before it is closed: an idle keep-alive connection, and equally a client that stalls while sending its request. Longer than a reverse proxy's or a client pool's own idle timeout (nginx, AWS ALB: 60 s), so a connection is never closed here just as the other side reuses it: that race fails a POST that no proxy retries. A stop (SIGTERM) does not wait for idle connections.",
      ),
    oidc: z
      .object({
        issuer: z.url().optional().describe("OpenID issuer URL. Unset: bearer JWTs are refused, API keys still work."),
        audience: z.string().min(1).default("aml-api"),
        rolesClaim: z.string().min(1).default("roles"),
        tenantClaim: z.string().min(1).default("tenant_id"),
        subjectClaim: z.string().min(1).default("sub"),
        clockSkewSeconds: z.coerce.number().int().min(0).max(300).default(30),
        jwksRefreshMinIntervalMs: z.coerce.number().int().min(0).default(30_000),
      })
      .strict()
      .default({
        audience: "aml-api",
        rolesClaim: "roles",
        tenantClaim: "tenant_id",
        subjectClaim: "sub",
        clockSkewSeconds: 30,
        jwksRefreshMinIntervalMs: 30_000,
      }),
    webhooks: z
      .object({
        timeoutMs: z.coerce.number().int().min(100).max(60_000).default(5_000),
        allowPrivateNetworks: z
          .array(
            z
              .string()
              .min(1)
              .superRefine((entry, ctx) => {
                const problem = allowListEntryProblem(entry);
                if (problem) ctx.addIssue({ code: "custom", message: `${JSON.stringify(entry)} ${problem}` });
              }),
          )
          .default([])
          .describe("Hosts or CIDR ranges on private networks that webhook URLs may point to (on-prem receivers)."),
      })
      .strict()
      .default({ timeoutMs: 5_000, allowPrivateNetworks: [] }),
    rateLimit: z
      .object({
        screensPerSecond: z.coerce
          .number()
          .positive()
          .max(1_000_000)
          .nullable()
          .default(null)
          .describe("Screens per second each tenant may send (check and rescreen 1, bulk one per valid row). Unset: no rate limit."),
        burst: z.coerce
          .number()
          .int()
          .min(1)
          .max(1_000_000)
          .nullable()
          .default(null)
          .describe("Screens a tenant may send at once from a full bucket. Unset: the larger of 1,000 (a full bulk) and one second's worth."),
      })
      .strict()
      .refine((limit) => limit.burst === null || limit.screensPerSecond !== null, {
        message: "a burst needs rateLimit.screensPerSecond (AML_RATE_LIMIT_SCREENS_PER_SECOND) as well",
        path: ["burst"],
      })
      .default({ screensPerSecond: null, burst: null }),
    auditExportCap: z.coerce.number().int().min(1).max(50_000).default(50_000),
    idempotencyTtlHours: z.coerce.number().int().min(1).max(24 * 30).default(24),
  })
  .strict();

export type Config = Readonly<z.infer<typeof ConfigSchema>>;

type Path = readonly [string] | readonly [string, string];

/** AML_* variables and where each lands in the config tree. */
export const ENV_SETTINGS: Record<string, { path: Path; list?: boolean }> = {
  AML_HOST: { path: ["host"] },
  AML_PORT: { path: ["port"] },
  AML_DATA_DIR: { path: ["dataDir"] },
  AML_LOG_LEVEL: { path: ["logLevel"] },
  AML_MAX_JSON_BODY_BYTES: { path: ["maxJsonBodyBytes"] },
  AML_MAX_UPLOAD_BYTES: { path: ["maxUploadBytes"] },
  AML_SHUTDOWN_GRACE_MS: { path: ["shutdownGraceMs"] },
  AML_IDLE_POLL_MS: { path: ["idlePollMs"] },
  AML_KEEP_ALIVE_TIMEOUT_SECONDS: { path: ["keepAliveTimeoutSeconds"] },
  AML_DURABILITY: { path: ["durability"] },
  AML_OIDC_ISSUER: { path: ["oidc", "issuer"] },
  AML_OIDC_AUDIENCE: { path: ["oidc", "audience"] },
  AML_OIDC_ROLES_CLAIM: { path: ["oidc", "rolesClaim"] },
  AML_OIDC_TENANT_CLAIM: { path: ["oidc", "tenantClaim"] },
  AML_OIDC_SUBJECT_CLAIM: { path: ["oidc", "subjectClaim"] },
  AML_OIDC_CLOCK_SKEW_SECONDS: { path: ["oidc", "clockSkewSeconds"] },
  AML_OIDC_JWKS_REFRESH_MIN_INTERVAL_MS: { path: ["oidc", "jwksRefreshMinIntervalMs"] },
  AML_WEBHOOK_TIMEOUT_MS: { path: ["webhooks", "timeoutMs"] },
  AML_WEBHOOK_ALLOW_PRIVATE: { path: ["webhooks", "allowPrivateNetworks"], list: true },
  AML_RATE_LIMIT_SCREENS_PER_SECOND: { path: ["rateLimit", "screensPerSecond"] },
  AML_RATE_LIMIT_BURST: { path: ["rateLimit", "burst"] },
  AML_AUDIT_EXPORT_CAP: { path: ["auditExportCap"] },
  AML_IDEMPOTENCY_TTL_HOURS: { path: ["idempotencyTtlHours"] },
};

/**
 * Variables that steer loading rather than land in the tree, or belong to one CLI command: the remote
 * mode's, and `aml webhook verify`'s signing secret (so it can stay off the command line).
 */
const LOADER_ENV = new Set(["AML_CONFIG", "AML_REMOTE", "AML_TOKEN", "AML_CLIENT_ID", "AML_CLIENT_SECRET", "AML_AUTH_URL", "AML_WEBHOOK_SECRET"]);

export class ConfigError extends Error {
  override name = "ConfigError";
}

export interface ConfigSources {
  env?: Record<string, string | undefined>;
  /** Path of a JSON config file; overrides AML_CONFIG. */
  configFile?: string;
  /** Values from command-line flags, already in config-tree shape. */
  flags?: Record<string, unknown>;
}

export function loadConfig(sources: ConfigSources = {}): Config {
  const env = sources.env ?? process.env;
  const tree: Record<string, unknown> = {};

  const file = sources.configFile ?? env.AML_CONFIG;
  if (file) mergeInto(tree, readConfigFile(file));
  mergeInto(tree, envToTree(env));
  if (sources.flags) mergeInto(tree, stripUndefined(sources.flags));

  const parsed = ConfigSchema.safeParse(tree);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((issue) => `  - ${issue.path.join(".") || "(root)"}: ${issue.message}`);
    throw new ConfigError(`Invalid configuration:\n${lines.join("\n")}`);
  }
  return deepFreeze(parsed.data);
}

/** Nested sections (oidc, webhooks and its allow-list) are frozen too: no code can widen a policy at runtime. */
function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === "object") {
    for (const child of Object.values(value)) deepFreeze(child);
    Object.freeze(value);
  }
  return value;
}

function readConfigFile(path: string): Record<string, unknown> {
  const full = resolve(path);
  if (!existsSync(full)) throw new ConfigError(`Config file not found: ${full}`);
  try {
    const value: unknown = JSON.parse(readFileSync(full, "utf8"));
    if (value === null || typeof value !== "object" || Array.isArray(value)) {
      throw new ConfigError(`Config file ${full} must hold a JSON object`);
    }
    return value as Record<string, unknown>;
  } catch (error) {
    if (error instanceof ConfigError) throw error;
    throw new ConfigError(`Config file ${full} is not valid JSON: ${(error as Error).message}`);
  }
}

function envToTree(env: Record<string, string | undefined>): Record<string, unknown> {
  const tree: Record<string, unknown> = {};
  const unknown: string[] = [];
  for (const [name, raw] of Object.entries(env)) {
    if (!name.startsWith("AML_") || raw === undefined || LOADER_ENV.has(name)) continue;
    const setting = ENV_SETTINGS[name];
    if (!setting) {
      unknown.push(name);
      continue;
    }
    const value = setting.list
      ? raw
          .split(",")
          .map((s) => s.trim())
          .filter(Boolean)
      : raw;
    setPath(tree, setting.path, value);
  }
  if (unknown.length > 0) {
    const known = Object.keys(ENV_SETTINGS).join(", ");
    throw new ConfigError(`Unknown environment setting(s): ${unknown.join(", ")}. Known settings: ${known}`);
  }
  return tree;
}

function setPath(tree: Record<string, unknown>, path: Path, value: unknown): void {
  if (path.length === 1) {
    tree[path[0]] = value;
    return;
  }
  const [outer, inner] = path;
  const child = (tree[outer] as Record<string, unknown> | undefined) ?? {};
  child[inner] = value;
  tree[outer] = child;
}

function mergeInto(target: Record<string, unknown>, source: Record<string, unknown>): void {
  for (const [key, value] of Object.entries(source)) {
    const existing = target[key];
    if (isPlainObject(existing) && isPlainObject(value)) mergeInto(existing, value);
    else target[key] = value;
  }
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

function stripUndefined(flags: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(flags).filter(([, v]) => v !== undefined));
}
