import type { Principal } from "@/auth/principal";
import type { CallMeta } from "@/context";
import type { Representation } from "./negotiate";

/**
 * Per-request facts set in onRequest, before Elysia parses anything, so they exist on every path:
 * success, validation failure, unknown route, thrown error.
 */
export interface RequestState {
  correlationId: string;
  startedAt: number;
  tenantId?: string;
  /**
   * The caller, once authenticated (authenticate.ts): by the guard, and also before the body was read
   * when the body may be over maxJsonBodyBytes on a route that takes one (app.ts onParse). Read by
   * the access log.
   */
  principal?: Principal;
  /** Whether `principal` was found before the body was read, so the guard authenticates it again. */
  principalBeforeBody?: boolean;
  /** The response's media type, when the route decided it before its handler ran (media.ts `produces`). */
  representation?: Representation;
  /** Set when an error produced the response, for the access log. */
  status?: number;
}

const states = new WeakMap<Request, RequestState>();

/** Client ids are echoed into headers and logs, so only a safe shape is accepted; anything else is replaced. */
const CORRELATION_ID_RE = /^[A-Za-z0-9._:@/+=-]{1,128}$/;

export function beginRequest(request: Request): RequestState {
  const supplied = request.headers.get("x-correlation-id");
  const state: RequestState = {
    correlationId: supplied && CORRELATION_ID_RE.test(supplied) ? supplied : crypto.randomUUID(),
    startedAt: performance.now(),
  };
  states.set(request, state);
  return state;
}

export function requestState(request: Request): RequestState {
  return states.get(request) ?? beginRequest(request);
}

/** Who made this call and its correlation id, for the audit entry a write records. */
export function callMeta(caller: Pick<Principal, "actor">, request: Request): CallMeta {
  return { actor: caller.actor, correlationId: requestState(request).correlationId };
}
