import { Elysia } from "elysia";
import { z } from "zod";
import type { TenantCaller } from "@/auth/principal";
import type { CallMeta } from "@/context";
import { ServiceError } from "@/errors";
import type { HttpDeps } from "@/http/deps";
import { guard, secured } from "@/http/guard";
import { requestState } from "@/http/request-state";
import { bulkScreen } from "./bulk";
import { bulkCsv } from "./bulk-csv";
import { CheckInput, checkScreening } from "./check";
import type { ScreeningDeps, ScreenOutcome } from "./deps";
import { getScreening } from "./get";
import { parseIdempotencyKey } from "./idempotency";
import { rescreenScreening } from "./rescreen";
import { BulkRequest, BulkResponse, jsonContent, openApiSchema, ScreeningResponse } from "./schemas";
import { screeningView } from "./view";

const IdParams = z.object({ id: z.string().min(1).max(100).describe("Screening id (UUID)") }).strict();
const BulkQuery = z
  .object({ format: z.enum(["json", "csv"]).optional().describe("csv returns a CSV download (as does Accept: text/csv); default json") })
  .strict();

type ResponseSet = { headers: Record<string, unknown> };

function meta(caller: TenantCaller, request: Request): CallMeta {
  return { actor: caller.actor, correlationId: requestState(request).correlationId };
}

function respond(outcome: ScreenOutcome, set: ResponseSet) {
  set.headers.location = `/v1/screenings/${outcome.record.id}`;
  if (outcome.replayed) set.headers["idempotent-replayed"] = "true";
  return screeningView(outcome.record);
}

/** A retried bulk would screen and charge every row again; saying so beats silently ignoring the header. */
function refuseIdempotencyKey(request: Request): void {
  if (!request.headers.has("idempotency-key")) return;
  throw new ServiceError("VALIDATION_FAILED", "Idempotency-Key is not supported on bulk: a repeated bulk request screens and charges every row again.", {
    fieldIssues: [{ field: "header.idempotency-key", message: "is not supported on this route" }],
  });
}

const IDEMPOTENCY =
  "Idempotency-Key header (optional, 1–255 printable ASCII characters, kept 24 h by default): the same key with the same body returns the original screening with `Idempotent-Replayed: true`, uncharged and without a new webhook; the same key with a different body is 422 IDEMPOTENCY_KEY_REUSED.";
const QUOTA = "429 with used and limit when the monthly quota is reached (reads and /v1/usage keep working).";
const SCREENING_RESPONSES = { 200: jsonContent("The screening", ScreeningResponse) };

/** Thin adapters over the screening verbs: validate, resolve the caller, call one verb, shape the response. */
export function screeningRoutes(deps: HttpDeps, screening: ScreeningDeps) {
  return new Elysia()
    .use(guard(deps))
    .post(
      "/v1/screenings/check",
      async ({ caller, body, request, set }) =>
        respond(
          await checkScreening(screening, {
            tenantId: caller.tenantId,
            input: body,
            idempotencyKey: parseIdempotencyKey(request.headers.get("idempotency-key")),
            meta: meta(caller, request),
          }),
          set,
        ),
      {
        tenant: "Screening.Write",
        body: CheckInput,
        // Names the JSON parser so the OpenAPI document lists the body (the app's own parser is a function the plugin cannot describe).
        parse: "json",
        detail: {
          ...secured("Screening.Write", {
            summary: "Screen one subject",
            description: `Body: the Subject fields plus optional \`options\` overriding the tenant's risk profile. Matches against the serving watchlist snapshot and stores an immutable screening, its case, the usage charge, an audit entry and the screening.completed webhook in one transaction; 200 with the full record and a Location header. ${IDEMPOTENCY} ${QUOTA} 400 lists every invalid or unknown field; 503 while no watchlist is loaded.`,
            tags: ["Screening"],
          }),
          responses: SCREENING_RESPONSES,
        },
      },
    )
    .post(
      "/v1/screenings/bulk",
      async ({ caller, body, query, request }) => {
        refuseIdempotencyKey(request);
        const result = await bulkScreen(screening, { tenantId: caller.tenantId, input: body, meta: meta(caller, request) });
        const csv = query.format === "csv" || (query.format === undefined && (request.headers.get("accept") ?? "").includes("text/csv"));
        if (!csv) return { rows: result.rows, summary: result.summary };
        return new Response(bulkCsv(result), {
          headers: {
            "content-type": "text/csv; charset=utf-8",
            "content-disposition": `attachment; filename="bulk-screening-${requestState(request).correlationId.replace(/[^A-Za-z0-9._-]/g, "_")}.csv"`,
            "x-bulk-total": String(result.summary.total),
            "x-bulk-screened": String(result.summary.screened),
            "x-bulk-failed": String(result.summary.failed),
          },
        });
      },
      {
        tenant: "Screening.Write",
        query: BulkQuery,
        // The body is validated row by row in the verb (a bad row fails alone), so it has no route schema.
        parse: "json",
        detail: {
          ...secured("Screening.Write", {
            summary: "Screen up to 1,000 subjects synchronously",
            description: `Body: a JSON array of 1–1,000 Subjects (no per-row options: every row uses the tenant's risk profile). 400 when the body is not such an array — nothing is screened or charged. 429 when the number of valid rows does not fit in the remaining quota — nothing is screened. Otherwise 200: rows are isolated, an invalid row gets an error entry {code, detail, errors[]} and the others are screened; each screened row is charged 1 and raises one screening.completed. A 200 does not mean every row succeeded: read summary.failed. An Idempotency-Key header is refused with 400 (a repeated bulk screens and charges again). format=csv or Accept: text/csv returns the rows as CSV (formula-safe; fullName included; X-Bulk-Total/-Screened/-Failed headers).`,
            tags: ["Screening"],
          }),
          requestBody: { required: true, content: { "application/json": { schema: openApiSchema(BulkRequest, "input") } } },
          responses: {
            200: {
              ...jsonContent("Per-row results and the summary", BulkResponse),
              content: {
                ...jsonContent("", BulkResponse).content,
                "text/csv": { schema: { type: "string", description: "One line per input row" } },
              },
            },
          },
        },
      },
    )
    .get("/v1/screenings/:id", ({ caller, params }) => screeningView(getScreening(deps.db, caller.tenantId, params.id)), {
      tenant: "Screening.Read",
      params: IdParams,
      detail: {
        ...secured("Screening.Read", {
          summary: "Read one screening in full",
          description: "Matched entities with explanations, suppressedMatches, adverseMediaStatus and the list versions used. 404 for an unknown or malformed id and for another tenant's screening. Not counted against the quota.",
          tags: ["Screening"],
        }),
        responses: SCREENING_RESPONSES,
      },
    })
    .post(
      "/v1/screenings/:id/rescreen",
      async ({ caller, params, request, set }) =>
        respond(
          await rescreenScreening(screening, {
            tenantId: caller.tenantId,
            id: params.id,
            idempotencyKey: parseIdempotencyKey(request.headers.get("idempotency-key")),
            meta: meta(caller, request),
          }),
          set,
        ),
      {
        tenant: "Screening.Write",
        params: IdParams,
        detail: {
          ...secured("Screening.Write", {
            summary: "Re-screen an earlier screening",
            description: `Screens the same subject with the ORIGINAL resolved options against the lists serving now. Returns a new screening (rescreenOf = the original, origin rescreen); the original is never changed. Charged as one screen and raises screening.completed. No body. ${IDEMPOTENCY} ${QUOTA} 404 for another tenant's or an unknown screening.`,
            tags: ["Screening"],
          }),
          responses: SCREENING_RESPONSES,
        },
      },
    );
}
