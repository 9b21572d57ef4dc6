// Browserless authorization_code + PKCE (S256) login, as the admin console does it,
// against an IdP whose login/consent pages are the headless interactions of oidc-idp.ts.
import { createHash, randomBytes } from "node:crypto";

export type PkceLoginOptions = {
  issuer: string;
  clientId: string;
  redirectUri: string;
  /** Account to log in as; the headless interaction reads it from `login_hint`. */
  loginHint: string;
  scope?: string;
  /** Omit the code_challenge to check that the IdP insists on PKCE. */
  withoutPkce?: boolean;
  maxHops?: number;
};
export type PkceLoginResult = {
  accessToken: string;
  idToken?: string;
  refreshToken?: string;
  scope?: string;
  hops: number;
};

export const CONSOLE_SCOPE = "openid profile email roles aml-api offline_access";

type Discovery = { authorization_endpoint: string; token_endpoint: string };

/** Cookie jar keyed by name only: enough for one sequential login against one origin. */
class CookieJar {
  readonly #cookies = new Map<string, string>();
  store(res: Response): void {
    for (const line of res.headers.getSetCookie()) {
      const pair = line.split(";", 1)[0] ?? "";
      const eq = pair.indexOf("=");
      if (eq <= 0) continue;
      const name = pair.slice(0, eq).trim();
      const value = pair.slice(eq + 1).trim();
      // Expired cookies come back empty: drop them so a stale interaction is not resent.
      if (value === "" || /max-age=0|expires=thu, 01 jan 1970/i.test(line)) this.#cookies.delete(name);
      else this.#cookies.set(name, value);
    }
  }
  header(): string {
    return [...this.#cookies].map(([n, v]) => `${n}=${v}`).join("; ");
  }
}

export async function pkceLogin(opts: PkceLoginOptions): Promise<PkceLoginResult> {
  const meta = (await (await fetch(`${opts.issuer}/.well-known/openid-configuration`)).json()) as Discovery;
  const verifier = randomBytes(32).toString("base64url");
  const challenge = createHash("sha256").update(verifier).digest("base64url");
  const state = randomBytes(8).toString("hex");
  const authorize = new URL(meta.authorization_endpoint);
  const params: Record<string, string> = {
    client_id: opts.clientId,
    response_type: "code",
    redirect_uri: opts.redirectUri,
    scope: opts.scope ?? CONSOLE_SCOPE,
    state,
    login_hint: opts.loginHint,
    // offline_access is only honoured with an explicit consent prompt.
    prompt: "consent",
  };
  if (!opts.withoutPkce) Object.assign(params, { code_challenge: challenge, code_challenge_method: "S256" });
  for (const [k, v] of Object.entries(params)) authorize.searchParams.set(k, v);

  const jar = new CookieJar();
  let url = authorize.toString();
  let hops = 0;
  for (;;) {
    if (++hops > (opts.maxHops ?? 12)) throw new Error(`PKCE login: too many redirects (last ${url})`);
    const res = await fetch(url, { redirect: "manual", headers: { cookie: jar.header() } });
    jar.store(res);
    const location = res.headers.get("location");
    if (res.status < 300 || res.status >= 400 || !location) {
      throw new Error(`PKCE login: unexpected ${res.status} at ${new URL(url).pathname}: ${(await res.text()).slice(0, 300)}`);
    }
    await res.arrayBuffer();
    url = new URL(location, url).toString();
    if (url.startsWith(opts.redirectUri)) break;
  }

  const callback = new URL(url);
  const error = callback.searchParams.get("error");
  if (error) throw new Error(`PKCE login: ${error}: ${callback.searchParams.get("error_description")}`);
  if (callback.searchParams.get("state") !== state) throw new Error("PKCE login: state mismatch");
  const code = callback.searchParams.get("code");
  if (!code) throw new Error("PKCE login: no code in callback");

  const res = await fetch(meta.token_endpoint, {
    method: "POST",
    body: new URLSearchParams({
      grant_type: "authorization_code",
      code,
      redirect_uri: opts.redirectUri,
      client_id: opts.clientId,
      code_verifier: verifier,
    }),
  });
  const body = (await res.json()) as Record<string, string | undefined>;
  if (!res.ok || !body["access_token"]) throw new Error(`PKCE token exchange: ${body["error"]} ${body["error_description"]}`);
  return {
    accessToken: body["access_token"],
    idToken: body["id_token"],
    refreshToken: body["refresh_token"],
    scope: body["scope"],
    hops,
  };
}
