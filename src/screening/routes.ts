import { Elysia } from "elysia";
import { EMPTY_REQUEST_BODY, NoQuery, refuseBodyFields } from "@/http/empty-input";
import { z } from "zod";
import { MAX_BODY_BYTES } from "@/http/body-limits";
import type { HttpDeps } from "@/http/deps";
import { guard, secured } from "@/http/guard";
import { media } from "@/http/media";
import { decidedRepresentation, JSON_ONLY, JSON_OR_CSV } from "@/http/negotiate";
import { jsonContent, jsonRequestBody, jsonResponse, mediaRefusals, NO_QUERY_PROBLEM, NO_WATCHLIST_PROBLEM, PARAMETERS, problemResponses } from "@/http/openapi";
import { callMeta, requestState } from "@/http/request-state";
import { pathId } from "@/lib/validate";
import { bulkScreen } from "./bulk";
import { bulkCsv } from "./bulk-csv";
import { CheckInput, checkScreening } from "./check";
import type { ScreeningDeps, ScreenOutcome } from "./deps";
import { getScreening } from "./get";
import { parseIdempotencyKey } from "./idempotency";
import { rescreenScreening } from "./rescreen";
import { BULK_RESPONSE_SCHEMA, BulkRequest, SCREENING_SCHEMA } from "./schemas";
import { MAX_ALIASES, MAX_BULK_ROWS, MAX_NAME_LENGTH, MAX_USER_REFERENCE_LENGTH } from "./subject";
import { screeningView } from "./view";

/**
 * Byte limit of a bulk body: 1,000 rows at every documented cap must fit (a 413 for them would
 * contradict the spec's 400 for bulk input over the caps), however the client's JSON encoder escapes
 * them. A maximal row holds 10,810 characters of strings: fullName 500 + 20 aliases × 500 +
 * userReference 200 + nationality 100 (the longest input the field accepts) + dateOfBirth 10. The
 * caps count characters (code points), and a character outside the Basic Multilingual Plane (𝔞,
 * U+1D51E) is two UTF-16 code units, which an encoder that escapes non-ASCII (Python's json.dumps by
 * default) writes as two \uXXXX: 12 bytes, the most any character takes in JSON. So at most
 * 12 × 10,810 = 129,720 bytes of string content, plus 140 bytes of keys, quotes, colons, commas and
 * brackets in compact JSON: 129,860 bytes a row, and 1,000 × 129,860 + 999 commas + 2 brackets =
 * 129,861,001 bytes for the request. 125 MiB (131,072,000) leaves 1,210,999 bytes (1.2 KB a row) of
 * headroom for whitespace (JSON.stringify's 2-space pretty-printing adds about 180 bytes a row).
 * Above it: 413, from Content-Length before anything is read, or as soon as a chunked body passes it.
 * Whitespace padding inside the strings, which trimming drops, is not budgeted. The limit is computed
 * from the caps (125 MiB as they stand, at least 1 KB a row of headroom), so raising a cap raises it;
 * a configured maxJsonBodyBytes above it raises it too.
 */
const MiB = 1024 * 1024;
const MAX_ROW_CHARACTERS = MAX_NAME_LENGTH * (1 + MAX_ALIASES) + MAX_USER_REFERENCE_LENGTH + 100 + 10;
/** The most bytes one character takes in JSON: a surrogate pair escaped as two \\uXXXX. */
const MAX_BYTES_PER_CHARACTER = 12;
const WORST_BULK_BYTES = MAX_BULK_ROWS * (MAX_BYTES_PER_CHARACTER * MAX_ROW_CHARACTERS + 140) + (MAX_BULK_ROWS - 1) + 2;
export const BULK_MAX_BODY_BYTES = Math.max(125 * MiB, Math.ceil((WORST_BULK_BYTES + MAX_BULK_ROWS * 1024) / MiB) * MiB);

const IdParams = z.object({ id: pathId("Screening id (UUID)") }).strict();
const BulkQuery = z
  .object({ format: z.enum(["json", "csv"]).optional().describe("csv returns a CSV download, json the JSON body; either wins over Accept. Default: Accept decides, JSON unless it prefers text/csv (the higher q-value, then the type listed first)") })
  .strict();

type ResponseSet = { headers: Record<string, unknown> };

function respond(outcome: ScreenOutcome, set: ResponseSet) {
  set.headers.location = `/v1/screenings/${outcome.record.id}`;
  if (outcome.replayed) set.headers["idempotent-replayed"] = "true";
  return screeningView(outcome.record);
}

const IDEMPOTENCY =
  "Idempotency-Key header (optional, 1–255 printable ASCII characters, kept 24 h by default): the same key with the same body returns the original screening with `Idempotent-Replayed: true`, uncharged and without a new webhook; the same key with a different body is 422 IDEMPOTENCY_KEY_REUSED.";
const BULK_IDEMPOTENCY =
  "Idempotency-Key header (optional, as on check, kept 24 h by default): the same key with the same rows (compared as validated, so \"Russia\" and \"RU\" are one) returns the original response — the same screeningId, outcome and error per row — with `Idempotent-Replayed: true`: nothing is screened, charged or announced again, even at the quota cap. The same key with other rows, or a key used by check or rescreen, is 422 IDEMPOTENCY_KEY_REUSED. A bulk stores all its rows in one transaction, so a request cut off before its answer either stored every row (a retry replays them) or none (a retry screens them). A row that failed is replayed as it failed, an INTERNAL one included: send such rows again under a new key.";
const TOO_MANY_SCREENS =
  "429 QUOTA_EXCEEDED when the tenant's monthly quota is used up, with used, limit, remaining and period, and (unless the quota is 0) Retry-After: the seconds until the counter resets at the start of the next UTC month. Reads and /v1/usage keep working. 429 RATE_LIMITED when the operator set a per-tenant rate limit (rateLimit.screensPerSecond) and this tenant's bucket holds no screen now, with rateLimit {screensPerSecond, burst, available, needed} and Retry-After; the replay of a completed Idempotency-Key is never rate-limited. Tell the two apart by code.";
const UNTOUCHED = "anything is screened, stored or charged";
const MEDIA = mediaRefusals(UNTOUCHED);

const SCREEN_HEADERS = {
  Location: { description: "/v1/screenings/{id} of the screening returned", schema: { type: "string" as const } },
  "Idempotent-Replayed": {
    description: "true when an Idempotency-Key replayed an earlier screening (not charged again); absent otherwise",
    schema: { type: "string" as const, enum: ["true"] },
  },
};
const BULK_HEADER = (what: string) => ({ description: `CSV responses only: ${what}`, schema: { type: "integer" as const } });

const SCREEN_PROBLEMS = {
  400: "Invalid or unknown body fields (each named in errors[]), malformed JSON, an unknown query parameter or a malformed Idempotency-Key.",
  503: NO_WATCHLIST_PROBLEM,
} as const;

/** Thin adapters over the screening verbs: resolve the caller, settle media types, call one verb, shape the response. */
export function screeningRoutes(deps: HttpDeps, screening: ScreeningDeps) {
  const bulkLimit = Math.max(BULK_MAX_BODY_BYTES, deps.config.maxJsonBodyBytes);
  return new Elysia()
    .use(guard(deps))
    .use(media())
    .post(
      "/v1/screenings/check",
      async ({ caller, body, request, set }) =>
        respond(
          await checkScreening(screening, {
            tenantId: caller.tenantId,
            // Validated by the verb, once (CheckInput): the route has no body schema of its own.
            input: body,
            idempotencyKey: parseIdempotencyKey(request.headers.get("idempotency-key")),
            meta: callMeta(caller, request),
          }),
          set,
        ),
      {
        tenant: "Screening.Write",
        produces: JSON_ONLY,
        jsonBody: "required",
        query: NoQuery,
        detail: {
          ...secured("Screening.Write", {
            summary: "Screen one subject",
            description: `Body: the Subject fields plus optional \`options\` overriding the tenant's risk profile. Matches against the serving watchlist snapshot and stores an immutable screening, its case, the usage charge, an audit entry and the screening.completed webhook in one transaction; 200 with the full record and a Location header. ${IDEMPOTENCY} ${TOO_MANY_SCREENS} 400 lists every invalid or unknown body field (a query parameter, which this route takes none of, is refused first, on its own); 503 while no watchlist is loaded. ${MEDIA} No query parameters.`,
            tags: ["Screening"],
          }),
          parameters: [PARAMETERS.idempotencyKey],
          requestBody: jsonRequestBody(CheckInput),
          responses: {
            200: jsonResponse("The screening; for a replayed Idempotency-Key, the original one", SCREENING_SCHEMA, SCREEN_HEADERS),
            ...problemResponses([400, 401, 403, 406, 413, 415, 422, 429, 503], SCREEN_PROBLEMS),
          },
        },
      },
    )
    .post(
      "/v1/screenings/bulk",
      async ({ caller, body, request, set }) => {
        // Validated by the verb: row by row, so a bad row fails alone.
        const result = await bulkScreen(screening, {
          tenantId: caller.tenantId,
          input: body,
          idempotencyKey: parseIdempotencyKey(request.headers.get("idempotency-key")),
          meta: callMeta(caller, request),
        });
        const replayed: Record<string, string> = result.replayed ? { "idempotent-replayed": "true" } : {};
        // The representation was chosen before screening (format, else Accept), so this cannot be a 406.
        if (decidedRepresentation(request) !== "text/csv") {
          Object.assign(set.headers, replayed);
          return { rows: result.rows, summary: result.summary };
        }
        return new Response(bulkCsv(result), {
          headers: {
            ...replayed,
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
        produces: JSON_OR_CSV,
        jsonBody: "required",
        query: BulkQuery,
        detail: {
          ...secured("Screening.Write", {
            summary: "Screen up to 1,000 subjects synchronously",
            description: `Body: a JSON array of 1–1,000 Subjects (no per-row options: every row uses the tenant's risk profile), at most ${bulkLimit} bytes (125 MiB: room for 1,000 rows at every field's cap, however escaped; 413 above it). A body that may be over maxJsonBodyBytes (declared so, or chunked) is read only once the caller is authorized for the route: 401 without a valid credential, 403 without Screening.Write or a usable tenant, before any of it is read. 400 when the body is not such an array — nothing is screened or charged. 429 QUOTA_EXCEEDED when the number of valid rows does not fit in the remaining quota, or when the tenant is at its cap whatever the rows (one with no valid row included; the replay of a completed Idempotency-Key excepted) — nothing is screened; its detail says the request does not fit and what it needs, and Retry-After (seconds until the monthly reset) is sent when the same request would fit then, not when it needs more than the whole limit. 429 RATE_LIMITED when the operator set a per-tenant rate limit and the tenant's bucket holds fewer screens than the valid rows (one screen per valid row), with Retry-After, or without it when the rows are more than the limit's burst (split the request). Otherwise 200: rows are isolated, an invalid row (an item that is not an object included) gets an error entry {code, detail, errors[]} and the others are screened; each screened row is charged 1 and raises one screening.completed. A 200 does not mean every row succeeded: read summary.failed. ${BULK_IDEMPOTENCY} Response type: format=csv or format=json wins; otherwise Accept, ranked by q-value, chooses between JSON (application/json, text/json, text/plain) and text/csv, JSON unless text/csv is preferred (the higher q-value; at equal q-values the type listed first). The CSV is formula-safe, includes fullName and carries X-Bulk-Total/-Screened/-Failed headers. ${MEDIA}`,
            tags: ["Screening"],
          }),
          [MAX_BODY_BYTES]: bulkLimit,
          parameters: [PARAMETERS.idempotencyKey],
          requestBody: jsonRequestBody(BulkRequest),
          responses: {
            200: {
              description: "Per-row results and the summary (JSON), or one CSV line per input row",
              headers: {
                "Idempotent-Replayed": {
                  description: "true when an Idempotency-Key replayed an earlier bulk (nothing screened or charged now); absent otherwise",
                  schema: { type: "string" as const, enum: ["true"] },
                },
                "X-Bulk-Total": BULK_HEADER("rows sent"),
                "X-Bulk-Screened": BULK_HEADER("rows screened"),
                "X-Bulk-Failed": BULK_HEADER("rows failed"),
                "Content-Disposition": {
                  description:
                    'CSV responses only: attachment; filename="bulk-screening-{correlation id}.csv", the request\'s correlation id with any character other than A-Z a-z 0-9 . _ - replaced by _',
                  schema: { type: "string" as const, pattern: '^attachment; filename="bulk-screening-[A-Za-z0-9._-]+\\.csv"$' },
                },
              },
              content: {
                ...jsonContent(BULK_RESPONSE_SCHEMA),
                "text/csv": { schema: { type: "string", description: "One line per input row, with a header line" } },
              },
            },
            ...problemResponses([400, 401, 403, 406, 413, 415, 422, 429, 503], {
              422: "IDEMPOTENCY_KEY_REUSED: the Idempotency-Key was used with other rows, or by check or rescreen; nothing is screened or charged.",
              400: "The body is not a JSON array of 1–1,000 rows (empty, malformed or over the row cap), an unknown query parameter or a malformed Idempotency-Key: nothing is screened or charged.",
              413: `The body is over ${bulkLimit} bytes.`,
              401: "The credential is missing, malformed, unknown, expired or revoked. A body that may be over maxJsonBodyBytes is not read before it is verified.",
              429: "QUOTA_EXCEEDED: the valid rows do not fit in the remaining monthly quota. RATE_LIMITED: with a per-tenant rate limit set, the tenant's bucket holds fewer screens than the valid rows. Either way nothing is screened or charged. Retry-After only when the same request can fit later (not when it needs more than the whole monthly limit, or than the rate limit's burst).",
              503: SCREEN_PROBLEMS[503],
            }),
          },
        },
      },
    )
    .get("/v1/screenings/:id", ({ caller, params }) => screeningView(getScreening(deps.db, caller.tenantId, params.id)), {
      tenant: "Screening.Read",
      produces: JSON_ONLY,
      params: IdParams,
      query: NoQuery,
      detail: {
        ...secured("Screening.Read", {
          summary: "Read one screening in full",
          description:
            "Matched entities with explanations, suppressedMatches, adverseMediaStatus and the list versions used. 404 for an unknown or malformed id and for another tenant's screening. Not counted against the quota. No query parameters.",
          tags: ["Screening"],
        }),
        responses: {
          200: jsonResponse("The screening", SCREENING_SCHEMA),
          ...problemResponses([400, 401, 403, 404, 406], { 400: NO_QUERY_PROBLEM }),
        },
      },
    })
    .post(
      "/v1/screenings/:id/rescreen",
      async ({ caller, params, body, request, set }) => {
        refuseBodyFields(body, "Rescreen request");
        return respond(
          await rescreenScreening(screening, {
            tenantId: caller.tenantId,
            id: params.id,
            idempotencyKey: parseIdempotencyKey(request.headers.get("idempotency-key")),
            meta: callMeta(caller, request),
          }),
          set,
        );
      },
      {
        tenant: "Screening.Write",
        produces: JSON_ONLY,
        jsonBody: "optional",
        params: IdParams,
        query: NoQuery,
        detail: {
          ...secured("Screening.Write", {
            summary: "Re-screen an earlier screening",
            description: `Screens the same subject with the ORIGINAL resolved options against the lists serving now. Returns a new screening (rescreenOf = the original, origin rescreen); the original is never changed. Charged as one screen and raises screening.completed. Takes no input: send no body (or \`{}\`, or \`null\`); any field, such as options, is 400 rather than ignored. ${IDEMPOTENCY} ${TOO_MANY_SCREENS} 404 for another tenant's or an unknown screening. 409 CONFLICT when the stored subject has a name with no letter or digit to match (only a screening stored before names were checked can): nothing is screened or charged; screen a corrected subject with check instead. ${mediaRefusals(UNTOUCHED, "optional")}`,
            tags: ["Screening"],
          }),
          parameters: [PARAMETERS.idempotencyKey],
          requestBody: EMPTY_REQUEST_BODY,
          responses: {
            200: jsonResponse("The new screening; for a replayed Idempotency-Key, the original re-screen", SCREENING_SCHEMA, SCREEN_HEADERS),
            ...problemResponses([400, 401, 403, 404, 406, 409, 413, 415, 422, 429, 503], {
              400: "A body other than {} (each field named in errors[]), malformed JSON, an unknown query parameter or a malformed Idempotency-Key.",
              409: "CONFLICT: the stored subject has a name (full name or alias) with no letter or digit to match; only a screening stored before names were checked can. Nothing is screened or charged: screen a corrected subject with POST /v1/screenings/check.",
              503: SCREEN_PROBLEMS[503],
            }),
          },
        },
      },
    );
}
