import type { Command } from "commander";
import { invalidInput, ServiceError } from "@/errors";
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
  return remote ? { baseUrl: remote.replace(/\/+$/, "") } : null;
}

/** A usable token: --token / AML_TOKEN, else the cached `aml login` token, renewed with AML_CLIENT_* when expired. */
async function bearerToken(command: Command): Promise<string> {
  const explicit = command.optsWithGlobals<RemoteOptions>().token ?? process.env.AML_TOKEN;
  if (explicit) return explicit;
  const stored = loadToken();
  if (stored && new Date(stored.expiresAt).getTime() - Date.now() > 30_000) return stored.accessToken;
  const authUrl = process.env.AML_AUTH_URL ?? stored?.authUrl;
  const clientId = process.env.AML_CLIENT_ID ?? stored?.clientId;
  const clientSecret = process.env.AML_CLIENT_SECRET;
  if (authUrl && clientId && clientSecret) {
    const grant = await clientCredentialsGrant({ authUrl, clientId, clientSecret, scope: "aml-api roles" });
    saveToken({ accessToken: grant.accessToken, expiresAt: grant.expiresAt.toISOString(), authUrl, clientId });
    return grant.accessToken;
  }
  // Refused before any call, like a 401 from the remote: the command needs a credential it was not given (exit 2).
  throw new ServiceError(
    "UNAUTHENTICATED",
    stored ? "The saved token has expired: run `aml login` again." : "No token: run `aml login` first, or pass --token (or AML_TOKEN).",
  );
}

/** Calls the admin API; a problem+json answer becomes a ServiceError with its detail and field issues. */
export async function remoteCall<T>(command: Command, method: string, path: string, body?: unknown): Promise<T> {
  const target = remoteTarget(command);
  if (!target) throw new Error("remoteCall without --remote");
  const token = await bearerToken(command);
  const response = await fetchNamed("the appliance", `${target.baseUrl}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, accept: "application/json", ...(body === undefined ? {} : { "content-type": "application/json" }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    timeoutMs: 30_000,
  });
  const payload = (await response.json().catch(() => null)) as Record<string, unknown> | null;
  if (!response.ok) {
    const detail = typeof payload?.detail === "string" ? payload.detail : `HTTP ${response.status}`;
    const code = typeof payload?.code === "string" ? payload.code : "INTERNAL";
    const fieldIssues = Array.isArray(payload?.errors) ? (payload.errors as Array<{ field: string; message: string }>) : undefined;
    throw new ServiceError(code as ServiceError["code"], `${detail} (HTTP ${response.status})`, fieldIssues ? { fieldIssues } : {});
  }
  if (payload && typeof payload === "object" && "correlationId" in payload) delete payload.correlationId;
  return payload as T;
}
