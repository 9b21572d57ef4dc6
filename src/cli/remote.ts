import type { Command } from "commander";
import { ERROR_CATALOGUE, type ErrorCode, invalidInput, ServiceError } from "@/errors";
import { fetchNamed } from "./network-error";
import { clientCredentialsGrant } from "./oidc-client";
import { loadToken, saveToken } from "./token-store";

export interface RemoteOptions {
  remote?: string;
  token?: string;
}

const remoteCapable = new WeakSet<Command>();

/**
 * Marks a command that honours --remote: the admin commands with an admin API route, and login and
 * webhook verify, which use neither the data folder nor the remote and so cannot answer from the wrong place.
 */
export function allowsRemote(command: Command): Command {
  remoteCapable.add(command);
  return command;
}

/**
 * Runs before every action. A local-only command given --remote exits 2 instead of quietly answering
 * from the local data folder. AML_REMOTE is a default for the commands with a remote mode: it does not
 * stop the others (an exported AML_REMOTE must not break `aml serve` or a backup on the host), but
 * they say on stderr that they ignored it.
 */
export function refuseRemote(command: Command): void {
  if (remoteCapable.has(command)) return;
  const name = commandPath(command);
  if (command.optsWithGlobals<RemoteOptions>().remote !== undefined) {
    throw invalidInput(`aml ${name} runs only on the appliance's host, on its data folder: it has no --remote mode; run it there without --remote`);
  }
  if (process.env.AML_REMOTE) process.stderr.write(`note: AML_REMOTE is ignored: aml ${name} works only on the local data folder\n`);
}

function commandPath(command: Command): string {
  const names: string[] = [];
  for (let c: Command | null = command; c?.parent; c = c.parent) names.unshift(c.name());
  return names.join(" ");
}

/** Remote mode: admin commands call the appliance's admin API with a bearer token instead of opening the data folder. */
export function remoteTarget(command: Command): { baseUrl: string } | null {
  const opts = command.optsWithGlobals<RemoteOptions>();
  const remote = opts.remote ?? process.env.AML_REMOTE;
  if (!remote) return null;
  // Checked before anything is sent: "127.0.0.1:8080" without a scheme was refused by fetch as
  // "Cannot reach the appliance" (exit 1), and "localhost:8080" read as a URL of scheme "localhost:".
  const url = URL.parse(remote);
  if (url === null || (url.protocol !== "http:" && url.protocol !== "https:") || url.host === "") {
    const from = opts.remote !== undefined ? "--remote" : "AML_REMOTE";
    throw invalidInput(`${from} must be the appliance's http or https URL, e.g. https://aml.bank.example or http://127.0.0.1:8080 (got ${JSON.stringify(remote)})`);
  }
  return { baseUrl: remote.replace(/\/+$/, "") };
}

/** The scope `aml login` asks for by default, and a renewal when the saved token does not say (tokens saved before it was kept). */
export const DEFAULT_SCOPE = "aml-api roles";

interface Bearer {
  token: string;
  /** --token / AML_TOKEN, the token `aml login` saved, or one just obtained with AML_CLIENT_SECRET. */
  source: "given" | "saved" | "renewed";
  /** Whether a refused token may be replaced: it was saved, and AML_CLIENT_SECRET can renew it. */
  renewable: boolean;
}

/** A usable token: --token / AML_TOKEN, else the cached `aml login` token, renewed with AML_CLIENT_* when expired. */
async function bearerToken(command: Command, refused?: string): Promise<Bearer> {
  const explicit = command.optsWithGlobals<RemoteOptions>().token ?? process.env.AML_TOKEN;
  if (explicit) return { token: explicit, source: "given", renewable: false };
  const stored = loadToken();
  const authUrl = process.env.AML_AUTH_URL ?? stored?.authUrl;
  const clientId = process.env.AML_CLIENT_ID ?? stored?.clientId;
  const clientSecret = process.env.AML_CLIENT_SECRET;
  const canRenew = Boolean(authUrl && clientId && clientSecret);
  const fresh = stored !== null && stored.accessToken !== refused && new Date(stored.expiresAt).getTime() - Date.now() > 30_000;
  if (fresh) return { token: stored.accessToken, source: "saved", renewable: canRenew };
  if (authUrl && clientId && clientSecret) {
    // The scope `aml login --scope` asked for (Entra's api://…/.default), not a fixed one; only of the
    // same provider and client: AML_AUTH_URL or AML_CLIENT_ID naming another gets the default.
    const sameLogin = stored !== null && stored.authUrl === authUrl && stored.clientId === clientId;
    const scope = (sameLogin ? stored.scope : undefined) ?? DEFAULT_SCOPE;
    const grant = await clientCredentialsGrant({ authUrl, clientId, clientSecret, scope });
    saveToken({ accessToken: grant.accessToken, expiresAt: grant.expiresAt.toISOString(), authUrl, clientId, scope });
    return { token: grant.accessToken, source: "renewed", renewable: false };
  }
  // Refused before any call, like a 401 from the remote: the command needs a credential it was not given (exit 2).
  throw new ServiceError(
    "UNAUTHENTICATED",
    refused !== undefined
      ? "The appliance refused the saved token (its identity provider's keys may have changed): run `aml login` again."
      : stored
        ? "The saved token has expired: run `aml login` again."
        : "No token: run `aml login` first, or pass --token (or AML_TOKEN).",
  );
}

/**
 * Calls the admin API; a problem+json answer becomes a ServiceError with its detail and field issues.
 * A saved token the appliance refuses (401) is renewed once when AML_CLIENT_SECRET allows it.
 */
export async function remoteCall<T>(command: Command, method: string, path: string, body?: unknown): Promise<T> {
  const target = remoteTarget(command);
  if (!target) throw new Error("remoteCall without --remote");
  let bearer = await bearerToken(command);
  let response = await send(target.baseUrl, method, path, bearer.token, body);
  if (response.status === 401 && bearer.renewable) {
    bearer = await bearerToken(command, bearer.token);
    response = await send(target.baseUrl, method, path, bearer.token, body);
  }
  const payload = (await response.json().catch(() => null)) as Record<string, unknown> | null;
  if (response.status === 401 && bearer.source === "saved") {
    // Not renewable (no AML_CLIENT_SECRET): say what to do, beside the appliance's own reason.
    const reason = typeof payload?.detail === "string" ? `${payload.detail} ` : "";
    throw new ServiceError("UNAUTHENTICATED", `${reason}The appliance refused the token saved by \`aml login\` (HTTP 401): run \`aml login\` again.`);
  }
  if (!response.ok) throw remoteRefusal(target.baseUrl, response.status, payload);
  // A 200 that is no JSON object (a web page at a wrong --remote) would fail later as a TypeError.
  if (payload === null || typeof payload !== "object") throw remoteRefusal(target.baseUrl, response.status, null);
  if ("correlationId" in payload) delete payload.correlationId;
  return payload as T;
}

function send(baseUrl: string, method: string, path: string, token: string, body: unknown): Promise<Response> {
  return fetchNamed("the appliance", `${baseUrl}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, accept: "application/json", ...(body === undefined ? {} : { "content-type": "application/json" }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    timeoutMs: 30_000,
  });
}

/**
 * The appliance's problem+json as a ServiceError. An answer without one (a wrong --remote URL: an
 * identity provider, a proxy's error page, another web server) is said to be so, keeping the class of
 * its status: a 4xx is still a mistake in the command (exit 2), a 5xx a failure (exit 1).
 */
function remoteRefusal(baseUrl: string, status: number, payload: Record<string, unknown> | null): ServiceError {
  const code = typeof payload?.code === "string" && payload.code in ERROR_CATALOGUE ? (payload.code as ErrorCode) : null;
  if (code === null || typeof payload?.detail !== "string") {
    const what = status < 400 ? "with no JSON object" : "without the appliance's problem+json";
    const detail = `${baseUrl} answered HTTP ${status} ${what}: is it the appliance's address, with no path after it?`;
    // A wrong address is the command's mistake (exit 2), whatever it answered, unless the server failed.
    return new ServiceError(status >= 500 ? "INTERNAL" : "INVALID_INPUT", detail);
  }
  const fieldIssues = Array.isArray(payload.errors) ? (payload.errors as Array<{ field: string; message: string }>) : undefined;
  return new ServiceError(code, `${payload.detail} (HTTP ${status})`, fieldIssues ? { fieldIssues } : {});
}
