// A real OpenID Provider (oidc-provider) on a loopback port, for tests only.
// Layout mirrors the spec: {issuer}/connect/token, {issuer}/connect/authorize,
// JWT access tokens for audience "aml-api" (resource indicator urn:aml-api).
import { randomBytes } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { exportJWK, generateKeyPair, type JWK, type JWTHeaderParameters, type JWTPayload, SignJWT } from "jose";
import Provider, { type Configuration, errors, type KoaContextWithOIDC } from "oidc-provider";
import { pkceLogin } from "./pkce-login";

export const API_RESOURCE = "urn:aml-api";
export const API_AUDIENCE = "aml-api";
export const API_SCOPE = "aml-api roles";
export const ADMIN_CLI = { clientId: "aml-admin-cli", clientSecret: "aml-admin-cli-secret" } as const;
export const ADMIN_CONSOLE_CLIENT_ID = "aml-admin-console";

/** A confidential client_credentials client; `roles`/`tenantId`/`claims` end up in its access tokens. */
export type TestClient = {
  clientId: string;
  clientSecret: string;
  roles?: string[];
  tenantId?: string | null;
  /** Extra top-level access-token claims, e.g. `{ realm_access: { roles: ["admin"] } }`. */
  claims?: Record<string, unknown>;
};
export type TestAccount = {
  roles?: string[];
  tenantId?: string | null;
  email?: string;
  claims?: Record<string, unknown>;
};
export type TestIdpOptions = {
  /** Extra confidential clients next to aml-admin-cli (roles [admin], no tenant). */
  clients?: TestClient[];
  /** Users for the authorization-code flow, keyed by account id (= `sub`). */
  accounts?: Record<string, TestAccount>;
  accessTokenTtlSeconds?: number;
  /** Signing keys are pre-generated because oidc-provider fixes its keystore at construction. */
  maxRotations?: number;
};
export type SigningKey = { kid: string; alg: "RS256"; privateJwk: JWK; publicJwk: JWK };

export type TestIdp = {
  issuer: string;
  tokenEndpoint: string;
  authorizationEndpoint: string;
  jwksUri: string;
  consoleRedirectUri: string;
  /** How many times the JWKS document was served (server-side count). */
  jwksRequests(): number;
  clientCredentialsToken(opts?: { clientId?: string; clientSecret?: string; scope?: string }): Promise<string>;
  authCodePkceToken(opts: { accountId: string; scope?: string }): Promise<string>;
  /** Switch signing to a fresh kid; `keepOld: false` also unpublishes the previous key. */
  rotateKeys(opts?: { keepOld?: boolean }): SigningKey;
  /** The current private signing key: only for crafting hostile/edge-case tokens in tests. */
  signingKey(): SigningKey;
  /** Signs exactly `payload` (no defaults added) with the current key. */
  mintRaw(payload: JWTPayload, header?: Partial<JWTHeaderParameters>): Promise<string>;
  stop(): Promise<void>;
};

async function newSigningKey(): Promise<SigningKey> {
  const { privateKey, publicKey } = await generateKeyPair("RS256", { extractable: true });
  const kid = `k-${randomBytes(6).toString("hex")}`;
  const meta = { kid, alg: "RS256", use: "sig" };
  return {
    kid,
    alg: "RS256",
    privateJwk: { ...(await exportJWK(privateKey)), ...meta },
    publicJwk: { ...(await exportJWK(publicKey)), ...meta },
  };
}

function asStrings(value: unknown): string[] | undefined {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === "string") : undefined;
}

function principalClaims(roles: unknown, tenantId: unknown, extra: unknown): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const r = asStrings(roles);
  if (r) out["roles"] = r;
  if (typeof tenantId === "string") out["tenant_id"] = tenantId;
  return { ...out, ...(extra && typeof extra === "object" ? extra : {}) };
}

export async function startTestIdp(opts: TestIdpOptions = {}): Promise<TestIdp> {
  const keys = await Promise.all(Array.from({ length: 1 + (opts.maxRotations ?? 2) }, newSigningKey));
  let current = 0;
  let published: SigningKey[] = [keys[0]!];
  let jwksHits = 0;

  // The issuer embeds the port, so bind first and build the provider afterwards.
  let handler: (req: IncomingMessage, res: ServerResponse) => void = (_req, res) => res.end();
  const server = createServer((req, res) => handler(req, res));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const consoleRedirectUri = `${issuer}/callback`;

  const accounts = opts.accounts ?? {};
  const clients: TestClient[] = [
    { ...ADMIN_CLI, roles: ["admin"], tenantId: null },
    ...(opts.clients ?? []),
  ];
  const config: Configuration = {
    clients: [
      ...clients.map((c) => ({
        client_id: c.clientId,
        client_secret: c.clientSecret,
        grant_types: ["client_credentials"],
        response_types: [],
        redirect_uris: [],
        // The spec posts client_id and client_secret in the form body.
        token_endpoint_auth_method: "client_secret_post" as const,
        roles: c.roles,
        tenant_id: c.tenantId ?? undefined,
        extra_claims: c.claims,
      })),
      {
        client_id: ADMIN_CONSOLE_CLIENT_ID,
        token_endpoint_auth_method: "none" as const,
        grant_types: ["authorization_code", "refresh_token"],
        response_types: ["code" as const],
        redirect_uris: [consoleRedirectUri],
      },
    ],
    extraClientMetadata: { properties: ["roles", "tenant_id", "extra_claims"] },
    jwks: { keys: keys.map((k) => k.privateJwk) },
    cookies: { keys: [randomBytes(16).toString("hex")] },
    routes: {
      authorization: "/connect/authorize",
      token: "/connect/token",
      jwks: "/connect/jwks",
      userinfo: "/connect/userinfo",
    },
    scopes: ["openid", "offline_access", "profile", "email"],
    claims: { email: ["email"], profile: ["name"] },
    pkce: { required: () => true },
    // Explicit TTLs: the defaults work but print a NOTICE per artifact type.
    ttl: {
      AccessToken: 600,
      ClientCredentials: 600,
      Grant: 3600,
      IdToken: 600,
      Interaction: 600,
      RefreshToken: 3600,
      Session: 3600,
    },
    features: {
      devInteractions: { enabled: false },
      clientCredentials: { enabled: true },
      resourceIndicators: {
        enabled: true,
        // Lets clients omit `resource`, as the spec's token requests do.
        defaultResource: () => API_RESOURCE,
        useGrantedResource: () => true,
        getResourceServerInfo: (_ctx, indicator) => {
          if (indicator !== API_RESOURCE) throw new errors.InvalidTarget();
          return {
            scope: API_SCOPE,
            audience: API_AUDIENCE,
            accessTokenFormat: "jwt",
            accessTokenTTL: opts.accessTokenTtlSeconds ?? 600,
            jwt: { sign: { alg: "RS256", kid: keys[current]!.kid } },
          };
        },
      },
    },
    findAccount: (_ctx, sub) => {
      const account = accounts[sub];
      if (!account) return undefined;
      return { accountId: sub, claims: () => ({ sub, email: account.email, name: sub }) };
    },
    extraTokenClaims: (ctx: KoaContextWithOIDC, token) => {
      if ("accountId" in token && token.accountId) {
        const a = accounts[token.accountId];
        return a ? principalClaims(a.roles, a.tenantId, a.claims) : undefined;
      }
      const meta = ctx.oidc.client?.metadata();
      return meta ? principalClaims(meta["roles"], meta["tenant_id"], meta["extra_claims"]) : undefined;
    },
  };
  const provider = new Provider(issuer, config);
  provider.use(headlessInteractions(provider));

  const jwksPath = "/connect/jwks";
  const providerCallback = provider.callback();
  // The provider publishes its whole keystore; tests need to control which keys are visible.
  handler = (req, res) => {
    if (req.method === "GET" && req.url?.split("?")[0] === jwksPath) {
      jwksHits++;
      res.setHeader("content-type", "application/jwk-set+json");
      res.end(JSON.stringify({ keys: published.map((k) => k.publicJwk) }));
      return;
    }
    void providerCallback(req, res);
  };

  const sign = (payload: JWTPayload, header: Partial<JWTHeaderParameters> = {}) => {
    const { privateJwk, kid } = keys[current]!;
    const alg = header.alg ?? "RS256";
    // The JWK's own alg is overridden so tests can sign e.g. PS256 with the RS256-published key.
    return new SignJWT(payload).setProtectedHeader({ typ: "at+jwt", kid, ...header, alg }).sign({ ...privateJwk, alg });
  };

  return {
    issuer,
    tokenEndpoint: `${issuer}/connect/token`,
    authorizationEndpoint: `${issuer}/connect/authorize`,
    jwksUri: `${issuer}${jwksPath}`,
    consoleRedirectUri,
    jwksRequests: () => jwksHits,
    async clientCredentialsToken({ clientId = ADMIN_CLI.clientId, clientSecret, scope = API_SCOPE } = {}) {
      const secret = clientSecret ?? clients.find((c) => c.clientId === clientId)?.clientSecret ?? "";
      const res = await fetch(`${issuer}/connect/token`, {
        method: "POST",
        body: new URLSearchParams({ grant_type: "client_credentials", client_id: clientId, client_secret: secret, scope }),
      });
      const body = (await res.json()) as { access_token?: string; error?: string; error_description?: string };
      if (!res.ok || !body.access_token) throw new Error(`client_credentials failed: ${body.error} ${body.error_description}`);
      return body.access_token;
    },
    async authCodePkceToken({ accountId, scope }) {
      const result = await pkceLogin({
        issuer,
        clientId: ADMIN_CONSOLE_CLIENT_ID,
        redirectUri: consoleRedirectUri,
        loginHint: accountId,
        scope,
      });
      return result.accessToken;
    },
    rotateKeys({ keepOld = true } = {}) {
      const previous = keys[current]!;
      const next = keys[current + 1];
      if (!next) throw new Error("no pre-generated key left: raise maxRotations");
      current++;
      published = keepOld ? [next, previous] : [next];
      return next;
    },
    signingKey: () => keys[current]!,
    mintRaw: sign,
    async stop() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/**
 * Stands in for the IdP's login and consent pages: logs in `login_hint` and grants what was asked.
 * Registered as provider middleware; the provider's router ignores /interaction/* itself.
 */
function headlessInteractions(provider: Provider) {
  return async (ctx: KoaContextWithOIDC, next: () => Promise<unknown>) => {
    if (ctx.method !== "GET" || !ctx.path.startsWith("/interaction/")) return next();
    const details = await provider.interactionDetails(ctx.req, ctx.res);
    const { prompt, params, session } = details;
    let result: Parameters<Provider["interactionResult"]>[2];
    if (prompt.name === "login") {
      const hint = typeof params["login_hint"] === "string" ? params["login_hint"] : "";
      result = { login: { accountId: hint } };
    } else {
      const grant = new provider.Grant({ accountId: session?.accountId, clientId: String(params["client_id"]) });
      const d = prompt.details;
      if (Array.isArray(d["missingOIDCScope"])) grant.addOIDCScope(d["missingOIDCScope"].join(" "));
      if (Array.isArray(d["missingOIDCClaims"])) grant.addOIDCClaims(d["missingOIDCClaims"]);
      const missing = d["missingResourceScopes"];
      if (missing && typeof missing === "object") {
        for (const [resource, scopes] of Object.entries(missing)) {
          grant.addResourceScope(resource, (scopes as string[]).join(" "));
        }
      }
      result = { consent: { grantId: await grant.save() } };
    }
    ctx.redirect(await provider.interactionResult(ctx.req, ctx.res, result, { mergeWithLastSubmission: true }));
  };
}
