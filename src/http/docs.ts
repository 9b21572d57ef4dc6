import { openapi } from "@elysiajs/openapi";
import { Elysia, t } from "elysia";
import swaggerBundle from "swagger-ui-dist/swagger-ui-bundle.js" with { type: "file" };
import swaggerCss from "swagger-ui-dist/swagger-ui.css" with { type: "file" };
import { ServiceError } from "@/errors";
import type { HttpDeps } from "./deps";

/** Swagger UI assets embedded in the binary: the explorer must work on an air-gapped network. */
const SWAGGER_ASSETS: Record<string, { path: string; type: string }> = {
  "swagger-ui-bundle.js": { path: swaggerBundle, type: "text/javascript; charset=utf-8" },
  "swagger-ui.css": { path: swaggerCss, type: "text/css; charset=utf-8" },
};

export const OPENAPI_PATH = "/openapi.json";

const DESCRIPTION = `Self-hosted sanctions, PEP and adverse-media screening appliance.

Conventions on every route:
- **Credentials**: a tenant API key in \`X-Api-Key\` (or as \`Authorization: Bearer aml_live_…\`), or an OIDC bearer token (audience \`aml-api\`). The tenant always comes from the credential, never from a body.
- **Correlation**: send \`X-Correlation-Id\` (1–128 characters of \`A-Z a-z 0-9 . _ : @ / + = -\`) or one is generated; it is echoed in the response header and as \`correlationId\` in every JSON object body.
- **Errors**: RFC 7807 \`application/problem+json\` with \`type\`, \`title\`, \`status\`, \`detail\`, \`instance\`, \`correlationId\`, a stable machine-readable \`code\`, and for validation errors an \`errors\` array of \`{field, message}\`. 401 = credential missing, malformed, unknown, expired or revoked; 403 = role does not satisfy the route's policy, or the credential has no usable tenant; 404 = not found (including another tenant's object); 405 = method not allowed (with \`Allow\`); 413 = body too large; 429 = quota reached (with \`used\` and \`limit\`).
- **Bodies**: unknown JSON fields and unknown query parameters are rejected with 400. JSON responses are \`application/json\`; \`Accept: text/json\` or \`text/plain\` returns the same JSON under that type.
- **Paging**: \`skip\` (default 0) and \`take\` (default 50, at most 500).`;

export function apiDocs(_deps: HttpDeps) {
  return new Elysia()
    .use(
      openapi({
        provider: "swagger-ui",
        path: "/swagger-ui",
        specPath: OPENAPI_PATH,
        documentation: {
          info: { title: "AML Screening Appliance API", version: "1.0", description: DESCRIPTION },
          components: {
            securitySchemes: {
              apiKey: { type: "apiKey", in: "header", name: "X-Api-Key", description: "Tenant API key (aml_live_…)" },
              bearer: { type: "http", scheme: "bearer", bearerFormat: "JWT", description: "OIDC access token, audience aml-api" },
            },
          },
        },
        exclude: { paths: ["/swagger-ui/assets/:file"] },
        swagger: {
          // The plugin's default spec URL is relative ("openapi.json"), which breaks when the page is opened as
          // /swagger-ui/. Its options type omits `url`, but the renderer passes every option through to Swagger UI.
          ...({ url: OPENAPI_PATH } as Record<string, unknown>),
          cdn: "/swagger-ui/assets/swagger-ui-bundle.js",
          theme: "/swagger-ui/assets/swagger-ui.css",
          autoDarkMode: false,
        },
      }),
    )
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
