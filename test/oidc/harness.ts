// The real IdP (oidc-provider) and the real appliance, both on loopback, wired together through
// AML_OIDC_ISSUER. A tenant is seeded in the data folder before either starts, so IdP clients and
// accounts can carry its real id in their tenant_id claim.
import { rmSync } from "node:fs";
import { openContext } from "@/bootstrap";
import { loadConfig } from "@/config";
import type { ServerExtension } from "@/server";
import type { LookupFn } from "@/webhooks/send-target";
import { issueApiKey } from "@/tenants/keys";
import { startTestIdp, type TestAccount, type TestClient, type TestIdp, type TestIdpOptions } from "../helpers/oidc-idp";
import { startTestServer, type TestServer, tempDataDir } from "../helpers/server";
import { makeTenant } from "../helpers/tenants";

export interface SeedTenant {
  id: string;
  slug: string;
  /** compliance_analyst key issued at onboarding. */
  apiKey: string;
  apiKeyId: string;
  /** A second key with role auditor. */
  auditorApiKey: string;
}

export interface OidcStack {
  idp: TestIdp;
  server: TestServer;
  seed: SeedTenant;
  /** client_credentials token of a registered client, cached per client. */
  token(clientId?: string): Promise<string>;
  close(): Promise<void>;
}

export interface OidcStackOptions {
  clients?: (seed: SeedTenant) => TestClient[];
  accounts?: (seed: SeedTenant) => Record<string, TestAccount>;
  idp?: Omit<TestIdpOptions, "clients" | "accounts">;
  env?: Record<string, string>;
  /** Built from the server's config; e.g. `aml serve`'s own extensions. */
  extensions?: (config: ReturnType<typeof loadConfig>) => Promise<ServerExtension[]>;
  /** How the admin routes resolve a webhook receiver's host name (default: the system resolver). */
  receiverLookup?: LookupFn;
}

function seedTenant(dataDir: string): SeedTenant {
  const ctx = openContext(loadConfig({ env: {}, flags: { dataDir, logLevel: "silent" } }));
  try {
    const created = makeTenant(ctx);
    const auditor = issueApiKey(ctx, { tenant: created.tenant.id, label: "auditor", role: "auditor" }, { actor: { type: "cli", id: "test" } });
    return {
      id: created.tenant.id,
      slug: created.tenant.slug,
      apiKey: created.apiKey,
      apiKeyId: created.apiKeyId,
      auditorApiKey: auditor.apiKey,
    };
  } finally {
    ctx.db.close();
  }
}

export async function startOidcStack(options: OidcStackOptions = {}): Promise<OidcStack> {
  const dataDir = tempDataDir("aml-oidc-");
  let idp: TestIdp | undefined;
  try {
    const seed = seedTenant(dataDir);
    idp = await startTestIdp({
      ...(options.idp ?? {}),
      clients: options.clients?.(seed) ?? [],
      accounts: options.accounts?.(seed) ?? {},
    });
    const env = { AML_OIDC_ISSUER: idp.issuer, ...(options.env ?? {}) };
    const extensions = options.extensions
      ? await options.extensions(loadConfig({ env, flags: { dataDir, logLevel: "silent" } }))
      : [];
    const server = await startTestServer({ env, dataDir, extensions, ...(options.receiverLookup ? { receiverLookup: options.receiverLookup } : {}) });
    const tokens = new Map<string, Promise<string>>();
    const started = idp;
    return {
      idp: started,
      server,
      seed,
      token(clientId = "aml-admin-cli") {
        let token = tokens.get(clientId);
        if (!token) {
          token = started.clientCredentialsToken({ clientId });
          tokens.set(clientId, token);
        }
        return token;
      },
      async close() {
        await server.close();
        await started.stop();
        rmSync(dataDir, { recursive: true, force: true });
      },
    };
  } catch (error) {
    await idp?.stop();
    rmSync(dataDir, { recursive: true, force: true });
    throw error;
  }
}

export type Credential = { bearer: string } | { apiKey: string } | null;

export interface CallResult<T = Record<string, unknown>> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

/** One HTTP call to the appliance; the body is parsed when it is JSON. */
export async function call<T = Record<string, unknown>>(
  baseUrl: string,
  method: string,
  path: string,
  options: { credential?: Credential; body?: unknown; headers?: Record<string, string> } = {},
): Promise<CallResult<T>> {
  const headers: Record<string, string> = { ...(options.headers ?? {}) };
  const credential = options.credential ?? null;
  if (credential && "bearer" in credential) headers["authorization"] = `Bearer ${credential.bearer}`;
  if (credential && "apiKey" in credential) headers["x-api-key"] = credential.apiKey;
  if (options.body !== undefined) headers["content-type"] = "application/json";
  const response = await fetch(`${baseUrl}${path}`, {
    method,
    headers,
    ...(options.body === undefined ? {} : { body: JSON.stringify(options.body) }),
  });
  const text = await response.text();
  let body: unknown = null;
  if (/json/.test(response.headers.get("content-type") ?? "") && text !== "") body = JSON.parse(text);
  return { status: response.status, headers: response.headers, body: body as T, text };
}

/** The problem+json body of an error answer. */
export interface Problem {
  type: string;
  title: string;
  status: number;
  detail: string;
  code: string;
  correlationId: string;
  errors?: Array<{ field: string; message: string }>;
}

/** The payload of a JWT, unverified (tests read `sub` from tokens the IdP issued). */
export function jwtPayload(token: string): Record<string, unknown> {
  const part = token.split(".")[1] ?? "";
  return JSON.parse(Buffer.from(part, "base64url").toString("utf8")) as Record<string, unknown>;
}
