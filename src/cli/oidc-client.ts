/**
 * The admin CLI as an OAuth client: client_credentials against the identity provider's token
 * endpoint, found through the issuer's discovery document (spec: {auth_url}/connect/token).
 */
import { fetchNamed } from "./network-error";

export interface ClientCredentials {
  authUrl: string;
  clientId: string;
  clientSecret: string;
  scope: string;
}

export async function discoverTokenEndpoint(authUrl: string): Promise<string> {
  const base = authUrl.endsWith("/") ? authUrl : `${authUrl}/`;
  const response = await fetchNamed("the identity provider", new URL(".well-known/openid-configuration", base), { timeoutMs: 10_000 });
  if (!response.ok) throw new Error(`Discovery at ${authUrl} answered ${response.status}`);
  const document = (await response.json()) as { token_endpoint?: unknown };
  if (typeof document.token_endpoint !== "string") throw new Error(`Discovery at ${authUrl} names no token_endpoint`);
  return document.token_endpoint;
}

export async function clientCredentialsGrant(creds: ClientCredentials): Promise<{ accessToken: string; expiresAt: Date }> {
  const endpoint = await discoverTokenEndpoint(creds.authUrl);
  const response = await fetchNamed("the identity provider's token endpoint", endpoint, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", accept: "application/json" },
    body: new URLSearchParams({
      grant_type: "client_credentials",
      client_id: creds.clientId,
      client_secret: creds.clientSecret,
      scope: creds.scope,
    }),
    timeoutMs: 10_000,
  });
  const body = (await response.json().catch(() => ({}))) as Record<string, unknown>;
  if (!response.ok || typeof body.access_token !== "string") {
    const reason = typeof body.error_description === "string" ? body.error_description : String(body.error ?? response.status);
    throw new Error(`The identity provider refused the client credentials: ${reason}`);
  }
  const lifetime = typeof body.expires_in === "number" ? body.expires_in : 300;
  return { accessToken: body.access_token, expiresAt: new Date(Date.now() + lifetime * 1000) };
}
