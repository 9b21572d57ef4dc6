import { openapi, toOpenAPISchema } from "@elysiajs/openapi";
import { type AnyElysia, Elysia, t } from "elysia";
import swaggerBundle from "swagger-ui-dist/swagger-ui-bundle.js" with { type: "file" };
import swaggerCss from "swagger-ui-dist/swagger-ui.css" with { type: "file" };
import { ServiceError } from "@/errors";
import type { HttpDeps } from "./deps";
import { WEBHOOK_OPENAPI } from "@/webhooks/openapi";
import { finishDocument, OPENAPI_COMPONENTS, type OpenApiDocument } from "./openapi";

/** Swagger UI assets embedded in the binary: the explorer must work on an air-gapped network. */
const SWAGGER_ASSETS: Record<string, { path: string; type: string }> = {
  "swagger-ui-bundle.js": { path: swaggerBundle, type: "text/javascript; charset=utf-8" },
  "swagger-ui.css": { path: swaggerCss, type: "text/css; charset=utf-8" },
};

export const OPENAPI_PATH = "/openapi.json";

const DESCRIPTION = `Self-hosted sanctions, PEP and adverse-media screening appliance.

Conventions on every route:
- **Credentials**: a tenant API key in \`X-Api-Key\` (or as \`Authorization: Bearer aml_live_…\`), or an OIDC bearer token (audience \`aml-api\`). Send one: X-Api-Key together with Authorization: Bearer is 401, since the two may name different tenants (an Authorization of another scheme, such as Basic for a proxy, is ignored beside X-Api-Key). The tenant always comes from the credential, never from a body.
- **Correlation**: send \`X-Correlation-Id\` (1–128 characters of \`A-Z a-z 0-9 . _ : @ / + = -\`) or one is generated (also in place of a value not of that form, which is never refused); it is echoed in the response header and as \`correlationId\` in every JSON object body.
- **Errors**: RFC 7807 \`application/problem+json\` with \`type\`, \`title\`, \`status\`, \`detail\`, \`instance\`, \`correlationId\`, a stable machine-readable \`code\`, and for validation errors an \`errors\` array of \`{field, message}\`. 401 = credential missing, malformed, unknown, expired or revoked; 403 = role does not satisfy the route's policy, or the credential has no usable tenant; 404 = not found (including another tenant's object; \`ROUTE_NOT_FOUND\` for a path no route serves, and for the contract's endpoints of features this version does not provide yet: batch jobs under \`/v1/screenings/batch\`, cases under \`/v1/cases\`, branding and \`/docs/reference\`, whose \`detail\` names the feature); 405 = method not allowed (with \`Allow\`; a path that is a route of its own belongs to that route, so \`GET /v1/screenings/check\` or \`GET /v1/webhooks/deliveries/redeliver\` is 405 with \`Allow: POST\`, not the read of an object with that id); 406 = \`Accept\` allows none of the route's response types; 413 = body too large (4 MiB by default, \`maxJsonBodyBytes\`, judged from Content-Length before anything is read or as a chunked body passes it; more where a route states it: bulk's JSON 125 MiB, the list upload's multipart 128 MiB by default, \`maxUploadBytes\`); 415 = the body is not JSON (not multipart on the list upload), or, on any route, it is sent in a content coding (a \`Content-Encoding\` other than \`identity\`, such as gzip), which the appliance does not decode (then with \`Accept-Encoding: identity\`); 429 = not enough monthly screening quota left (with \`used\`, \`limit\`, \`remaining\` and \`period\`): a single screen at the cap (a check whose body or options would be refused is that 400 first, at the cap too), or a bulk whose valid rows do not fit in what remains (its \`detail\` says so and what it needs), with \`Retry-After\` (seconds until the monthly reset) when the same request would fit after the reset. 429 \`RATE_LIMITED\` (off unless the operator sets \`rateLimit.screensPerSecond\`) = the tenant's screening rate limit admits no more screens now, with \`rateLimit\` {screensPerSecond, burst, available, needed} and \`Retry-After\` in seconds (none when a bulk has more valid rows than the limit's burst: split it); only screening calls are rate-limited (check, rescreen, each valid bulk row), never reads, \`/v1/usage\` or the replay of a completed Idempotency-Key. Tell the two 429s apart by \`code\`. 503 \`NOT_READY\` = the appliance cannot serve this now: no watchlist imported yet (its \`detail\` says to run \`aml lists import\`), a snapshot still loading, or the database locked by another process past its wait, or the appliance shutting down while a write waited for that lock (then with \`Retry-After: 1\`, and nothing was stored or charged), or the data folder's disk full (then with \`Retry-After: 60\`, and nothing was stored or charged). 431 = the request line and headers together exceed 16 KiB, the HTTP server's own limit: it answers before the appliance reads the request, so that 431 has no body and no correlation id, and nothing is done (no operation lists it). The HTTP server answers the same way, bodiless and before the appliance sees anything, a request HTTP/1.1 cannot frame (400: two Content-Length headers, Content-Length with Transfer-Encoding, a negative length, a NUL in a header, no Host; 505: another HTTP version) and a body declared larger than any route takes plus 1 MiB (413: 129 MiB with the default \`maxUploadBytes\`); it closes the connection without an answer for a method it does not know (\`FOO\`, or a lower-case \`get\`: methods are case-sensitive). 500 \`INTERNAL\` = an unexpected error; quote its \`correlationId\` (the server log has the rest). A 406 or 415 is answered before the route does any work: nothing is screened, stored, charged, imported or changed. Large bodies: on bulk and the list upload, a body that may be over 4 MiB (declared so, or chunked) is read only once the caller is authorized for the route (401 or 403 first, before any of it is read), and the credential is checked again once the body is in (a key revoked or a tenant suspended while it arrived gets 401 or 403, and nothing is screened or imported); a multipart body on any other route is never read.
- **Bodies**: request bodies are JSON: \`Content-Type: application/json\` (a \`charset\` parameter is fine), \`text/json\` or \`application/*+json\`; any other Content-Type (text/plain, form-urlencoded, CSV, multipart) is 415 on a JSON route, and a body sent without a Content-Type is read as JSON. Bodies are read as UTF-8 whatever the \`charset\` parameter says (RFC 8259); bytes that are not UTF-8 are 400 MALFORMED_JSON, never screened with replacement characters. The one exception is \`POST /v1/lists/import\`, which takes \`multipart/form-data\` only. Unknown JSON fields and unknown query parameters are rejected with 400 naming them (\`query.<name>\`).
- **Responses**: JSON responses are \`application/json\`; \`Accept: text/json\` or \`text/plain\` returns the same JSON under that type (the highest q-value wins, RFC 9110). Where a route also offers CSV (bulk screening, the audit log), \`Accept: text/csv\` selects it, and an explicit \`format=json|csv\` query parameter wins over Accept.
- **Paging**: routes that page (the audit log, webhook deliveries) take \`skip\` (default 0) and \`take\` (default 50, at most 500); other routes do not page.
- **Versioning**: operations live under \`/v1\`; this description is version 1.0. Within v1 changes are additive only (new operations, optional request fields, response fields, headers and problem codes; ignore response fields you do not know); the values of the enumerated response fields are the spec's and do not grow within v1, while webhook event types do (\`monitoring.alert\` comes with monitoring: dispatch on \`X-AML-Event\` and acknowledge a type you do not handle). A change that would break a v1 client is made under \`/v2\`, with \`/v1\` served beside it for at least one further release, marked \`deprecated\` here and answering with \`Deprecation\` and \`Sunset\` headers. The change history is \`docs/api-changes.md\`, shipped with each release.`;

const DOCUMENTATION = {
  info: { title: "AML Screening Appliance API", version: "1.0", description: DESCRIPTION },
  components: {
    ...OPENAPI_COMPONENTS,
    securitySchemes: {
      apiKey: { type: "apiKey", in: "header", name: "X-Api-Key", description: "Tenant API key (aml_live_…)" },
      bearer: { type: "http", scheme: "bearer", bearerFormat: "JWT", description: "OIDC access token, audience aml-api" },
    },
  },
} as const;

const EXCLUDE = { paths: ["/swagger-ui/assets/:file"] };
const OPENAPI_VERSION = "3.1.2";

/**
 * The OpenAPI document of every route of `app`, completed by finishDocument() (shared problem
 * responses, header parameters, named schemas) and serialised once: it is rebuilt only when routes
 * were added since.
 */
function documentSource(app: () => AnyElysia) {
  let cached: { routes: number; text: string } | null = null;
  return (): string => {
    const routes = app().routes;
    if (cached?.routes === routes.length) return cached.text;
    const generated = toOpenAPISchema(app(), EXCLUDE, undefined, undefined, OPENAPI_VERSION) as unknown as OpenApiDocument;
    const doc: OpenApiDocument = {
      openapi: OPENAPI_VERSION,
      info: DOCUMENTATION.info,
      paths: generated.paths,
      webhooks: WEBHOOK_OPENAPI,
      components: { ...DOCUMENTATION.components, schemas: { ...(generated.components?.["schemas"] as object), ...DOCUMENTATION.components.schemas } },
    };
    cached = { routes: routes.length, text: JSON.stringify(finishDocument(doc, routes)) };
    return cached.text;
  };
}

/** `app` is read lazily: the document describes the routes registered after this plugin too. */
export function apiDocs(_deps: HttpDeps, app: () => AnyElysia) {
  const document = documentSource(app);
  return new Elysia()
    .use(
      openapi({
        provider: "swagger-ui",
        path: "/swagger-ui",
        specPath: OPENAPI_PATH,
        // The explorer page's title; the document itself is served by the route below.
        documentation: { info: DOCUMENTATION.info },
        exclude: EXCLUDE,
        swagger: {
          // The plugin's default spec URL is relative ("openapi.json"), which breaks when the page is opened as
          // /swagger-ui/. Its options type omits `url`, but the renderer passes every option through to Swagger UI.
          // validatorUrl: Swagger UI's default draws a badge <img> from validator.swagger.io, sending the
          // page's absolute spec URL (the appliance's internal address) there, whenever the host is not
          // localhost or 127.0.0.1; offline it shows a broken "Error" image. "none" turns it off.
          ...({ url: OPENAPI_PATH, validatorUrl: "none" } as Record<string, unknown>),
          cdn: "/swagger-ui/assets/swagger-ui-bundle.js",
          theme: "/swagger-ui/assets/swagger-ui.css",
          autoDarkMode: false,
        },
      }),
    )
    // Registered after the plugin, this replaces the plugin's own document route at the same path:
    // the plugin cannot keep a route's declared header parameters beside its path and query ones, nor
    // publish shared components. A Response, so the document gains no correlationId member.
    .get(OPENAPI_PATH, () => new Response(document(), { headers: { "content-type": "application/json; charset=utf-8" } }), {
      detail: { hide: true },
    })
    .get(
      "/swagger-ui/assets/:file",
      ({ params }) => {
        const asset = SWAGGER_ASSETS[params.file];
        if (!asset) throw new ServiceError("NOT_FOUND", `No explorer asset ${params.file}`);
        return new Response(Bun.file(asset.path), {
          headers: { "content-type": asset.type, "cache-control": "public, max-age=86400" },
        });
      },
      { params: t.Object({ file: t.String() }), detail: { hide: true } },
    );
}
