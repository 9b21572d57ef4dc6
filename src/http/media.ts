import { Elysia } from "elysia";
import { ServiceError } from "@/errors";
import { iJsonProblem } from "@/lib/i-json";
import { chooseRepresentation, type Representation, rememberRepresentation } from "./negotiate";

/**
 * Route options that settle media types BEFORE the handler does any work, so a request the route
 * cannot serve is refused without screening, storing or charging anything:
 *
 * - `produces: [...types]`: the response type is chosen from Accept (and an explicit `format` query
 *   parameter, which wins) and remembered for the response; 406 NOT_ACCEPTABLE when Accept allows none.
 * - `jsonBody: "required" | "optional"`: the body must be JSON. Another declared Content-Type is 415
 *   UNSUPPORTED_MEDIA_TYPE; a body without a Content-Type is read as JSON (clients such as Python's
 *   requests with `data=` send none); an empty body reaches the handler as undefined ("optional"
 *   accepts it whatever Content-Type came with it). The route validates the body itself.
 *
 * - `noBody: inputs`: the route takes no body; one sent is 400 VALIDATION_FAILED on "body", naming
 *   `inputs` (the query parameters to use instead), not ignored.
 *
 * All run as beforeHandle hooks: after the guard's authentication (401/403 come first) and the
 * query/params validation, before the handler. The cost is a header read or two per request.
 */

/**
 * The body of a request whose body was left unread: a multipart body on a route that takes no upload
 * (app.ts), or what a jsonBody route's own parse hook leaves when the app's parser returned nothing.
 */
export const UNREAD = Symbol("unread body");

/**
 * application/json, a structured-syntax JSON type (application/vnd.api+json) or text/json, parameters
 * (charset) aside. text/json is the JSON type the contract negotiates besides application/json, and the
 * one some .NET clients send; text/plain is not JSON by its name, so it stays 415.
 */
export function isJsonMediaType(contentType: string): boolean {
  if (contentType === "application/json") return true;
  const semicolon = contentType.indexOf(";");
  const essence = (semicolon === -1 ? contentType : contentType.slice(0, semicolon)).trim().toLowerCase();
  return essence === "application/json" || essence === "text/json" || (essence.startsWith("application/") && essence.endsWith("+json"));
}

const SEND_JSON = "send application/json";

function unsupported(contentType: string): ServiceError {
  const shown = contentType.length > 100 ? `${contentType.slice(0, 100)}…` : contentType;
  return new ServiceError("UNSUPPORTED_MEDIA_TYPE", `This endpoint reads a JSON body; Content-Type "${shown}" is not JSON: ${SEND_JSON}.`);
}

/** Whether the request has body bytes in a content coding other than identity; such a body is never read (app.ts). */
export function inContentCoding(request: Request): boolean {
  const coding = request.headers.get("content-encoding");
  if (coding === null || !sentBytes(request)) return false;
  return coding.split(",").some((c) => {
    const name = c.trim().toLowerCase();
    return name !== "" && name !== "identity";
  });
}

/**
 * A body sent in a content coding (Content-Encoding: gzip, br, deflate) is refused with 415, as RFC
 * 9110 (15.5.16) asks of a server that does not decode it, with Accept-Encoding: identity naming what
 * it takes. Read as it came, a gzipped body was a 400 "not UTF-8", and a plain body labelled gzip was
 * screened as if the label were not there. "identity" and a request without body bytes pass.
 */
export function refuseContentCoding(request: Request): void {
  if (!inContentCoding(request)) return;
  const coding = request.headers.get("content-encoding") ?? "";
  const shown = coding.length > 100 ? `${coding.slice(0, 100)}…` : coding;
  throw new ServiceError("UNSUPPORTED_MEDIA_TYPE", `The request body must not be encoded; Content-Encoding "${shown}" is not supported: send the body uncompressed, without Content-Encoding.`, {
    headers: { "accept-encoding": "identity" },
  });
}

/**
 * What the app's parser leaves as the body of a JSON request that does not parse. The parser runs
 * before the guard authenticates; refusing there would answer an unauthenticated caller 400 instead
 * of 401. The app refuses it once the route's guard has run (app.ts, refuseMalformedInput).
 */
export class MalformedJson {
  /** `reason` completes "The request body is not valid JSON: …"; `detail` replaces the whole sentence. */
  constructor(
    readonly reason: string,
    readonly detail = `The request body is not valid JSON: ${reason}`,
  ) {}

  problem(): ServiceError {
    return new ServiceError("MALFORMED_JSON", this.detail);
  }
}

/**
 * A JSON body's text as a value: undefined when empty, MalformedJson when not JSON, when one object
 * names a member twice, or when a string escapes half a surrogate pair (the app's parser). JSON.parse
 * would keep the last of two names silently, so the appliance could screen a name other than the one
 * a gateway or a log read first; a lone surrogate cannot be stored as UTF-8 and came back as U+FFFD,
 * a value the client never sent (lib/i-json.ts).
 */
export function readJsonText(text: string): unknown {
  if (text.trim() === "") return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text) as unknown;
  } catch (error) {
    return new MalformedJson((error as Error).message);
  }
  const refused = iJsonProblem(text, value);
  if (refused === null) return value;
  if (refused.kind === "loneSurrogate") return new MalformedJson("a string holds a lone surrogate", `The request body is not valid JSON text: ${refused.detail}`);
  const at = refused.path === refused.key ? "" : ` (at ${refused.path})`;
  return new MalformedJson(
    "a name is repeated",
    `The request body names ${JSON.stringify(refused.key)} twice in one object${at}; send each name once, so that what is screened is not in doubt.`,
  );
}

/**
 * A JSON body's text as a value: undefined when empty, 400 MALFORMED_JSON when not JSON. For a body
 * that came without a Content-Type, read by a JSON route after its guard has run.
 */
export function parseJsonText(text: string): unknown {
  const value = readJsonText(text);
  if (value instanceof MalformedJson) throw value.problem();
  return value;
}

/**
 * Whether the request came with body bytes. A body of "" is what Elysia leaves for an empty one and
 * what the app's parser returns for an empty text one, but under a JSON Content-Type it is also the
 * JSON string `""` a client sent (two bytes): a value the route refuses, not "no body".
 */
function sentBytes(request: Request): boolean {
  const length = request.headers.get("content-length");
  return length === null ? request.headers.has("transfer-encoding") : Number(length.trim()) !== 0;
}

/**
 * Whether a route that takes no body got one: body bytes were declared, or a chunked body left
 * something. Such a body was silently ignored, so `{"role":"auditor"}` issued an analyst key.
 */
function carriesBody(request: Request, body: unknown): boolean {
  // A declared length says it (sentBytes); a chunked body may still be empty, so then what was read does.
  if (request.headers.has("content-length")) return sentBytes(request);
  return body !== undefined && body !== "" && body !== null;
}

/** 400 naming "body" for a route whose inputs are `inputs` ("the query parameters label and role"). */
function noBodyProblem(inputs: string): ServiceError {
  const message = `must be absent: this route takes no body; send ${inputs}`;
  return new ServiceError("VALIDATION_FAILED", `The request is invalid: body ${message}.`, { fieldIssues: [{ field: "body", message }] });
}

interface BodyContext {
  request: Request;
  body: unknown;
}

export function media() {
  return new Elysia().macro({
    produces: (offered: readonly Representation[]) => ({
      beforeHandle({ request, query }: { request: Request; query: Record<string, unknown> }) {
        rememberRepresentation(request, chooseRepresentation(request.headers.get("accept"), offered, query["format"]));
      },
    }),
    // `noBody: "the query parameters label and role"`: a body (any bytes, any Content-Type) is 400
    // naming what to send instead, before anything is written; none, or an empty one, is fine.
    noBody: (inputs: string) => ({
      beforeHandle(context: BodyContext) {
        if (carriesBody(context.request, context.body)) throw noBodyProblem(inputs);
      },
    }),
    jsonBody: (mode: "required" | "optional") => ({
      // Runs only when the app's parser returned nothing. Returning a value stops Elysia from falling
      // back to its own parsers, which would read a multipart body in full or fail on a consumed one.
      parse: () => UNREAD,
      beforeHandle(context: BodyContext) {
        const contentType = context.request.headers.get("content-type");
        const body = context.body;
        const json = contentType !== null && isJsonMediaType(contentType);
        if (contentType !== null && !json) {
          // A multipart body is never read (UNREAD), so it is never taken for an empty one.
          if (mode === "optional" && (body === "" || body === undefined)) {
            context.body = undefined;
            return;
          }
          throw unsupported(contentType);
        }
        // Past the branch above the content type is JSON or absent.
        const empty = body === UNREAD || body === undefined || (body === "" && !(json && sentBytes(context.request)));
        if (empty) context.body = undefined;
        else if (contentType === null && typeof body === "string") context.body = parseJsonText(body);
      },
    }),
  });
}
