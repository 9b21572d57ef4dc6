import { Elysia } from "elysia";
import { z } from "zod";
import { auditExportPages, listAudit, planAuditExport } from "@/audit/list";
import type { AuditEntry } from "@/audit/rows";
import { BREAK_REASONS, SHA256_HEX, verifyAuditChainPaced } from "@/audit/verify";
import { csvLines } from "@/exports/csv";
import { yieldToEventLoop } from "@/lib/steps";
import { offsetDateTime } from "@/lib/validate";
import type { HttpDeps } from "../deps";
import { guard, secured } from "../guard";
import { requestState } from "../request-state";
import { media } from "../media";
import { decidedRepresentation, JSON_ONLY, JSON_OR_CSV } from "../negotiate";
import { BODY_CORRELATION_ID, instant, jsonContent, jsonResponse, problemResponses, schemaComponent } from "../openapi";
import { optionalWholeNumberParam, Paging } from "../paging";

const AuditQuery = z
  .object({
    action: z.string().min(1).max(100).optional().describe("Exact action, e.g. tenant.create, api_key.revoke, quota.set"),
    targetType: z.string().min(1).max(100).optional().describe("Exact target type, e.g. tenant, api_key, screening"),
    from: offsetDateTime().optional().describe("Entries at or after this instant"),
    to: offsetDateTime().optional().describe("Entries at or before this instant; not before from (from = to is one instant)"),
    format: z
      .enum(["json", "csv"])
      .optional()
      .describe("csv returns a CSV export (capped at the appliance's auditExportCap, 50,000 rows by default), json a page of JSON; either wins over Accept. Default: Accept decides, JSON unless it prefers text/csv (the higher q-value, then the type listed first)"),
    ...Paging.shape,
  })
  .strict()
  // Both bounds are inclusive, so from = to is one instant; a to before from is a mistake, not an empty
  // page (and is refused as POST /v1/webhooks/deliveries/redeliver refuses it).
  .refine((query) => !query.from || !query.to || Date.parse(query.from) <= Date.parse(query.to), {
    path: ["to"],
    message: "must not be before from",
  });

/** An anchor from an earlier verification: both parts or neither. */
const VerifyQuery = z
  .object({
    sequence: optionalWholeNumberParam(1, Number.MAX_SAFE_INTEGER).describe("With hash: an earlier verification's entriesChecked, the anchor's position in the chain"),
    hash: z.string().regex(SHA256_HEX, "must be 64 lower-case hex digits (a SHA-256)").optional().describe("With sequence: that verification's lastHash"),
  })
  .strict()
  .superRefine((query, ctx) => {
    if ((query.sequence === undefined) === (query.hash === undefined)) return;
    const missing = query.sequence === undefined ? "sequence" : "hash";
    ctx.addIssue({ code: "custom", path: [missing], message: "is needed with the other: an anchor is an earlier verification's entriesChecked (sequence) and lastHash (hash)" });
  });

/** Response shapes for the OpenAPI description only (test/http/admin-media.test.ts checks real answers against them). */
const AuditEntryResponse = z.object({
  id: z.string(),
  sequence: z.number().int().min(1).describe("Position in the tenant's chain, from 1"),
  at: instant("When it was written"),
  action: z.string(),
  targetType: z.string(),
  targetId: z.string().nullable(),
  actor: z.object({ type: z.string(), id: z.string() }).describe("Who acted: an API key, a token's sub, the CLI or the system"),
  correlationId: z.string().nullable().describe("Correlation id of the request that wrote the entry"),
  details: z.unknown().describe("What happened, as JSON (depends on the action)"),
  prevHash: z.string(),
  hash: z.string().describe("sha256(prevHash + \"\\n\" + canonical JSON of the entry)"),
});
export const AuditPageResponse = z
  .object({
    items: z.array(AuditEntryResponse),
    total: z.number().int().min(0).describe("Entries matching the filters"),
    skip: z.number().int().min(0),
    take: z.number().int().min(1),
    correlationId: BODY_CORRELATION_ID,
  })
  .describe("One page of the tenant's audit log, newest first.");
export const AuditVerificationResponse = z
  .object({
    intact: z.boolean(),
    entriesChecked: z.number().int().min(0),
    firstBrokenEntryId: z.string().nullable().describe("The first entry whose hash, link or sequence does not hold; null when intact"),
    reason: z
      .enum(BREAK_REASONS)
      .nullable()
      .describe("Why it is broken: hash_mismatch, link_mismatch, sequence_gap or unreadable_details (the chain does not hold); truncated (fewer entries than the anchor's sequence: cut from its end); anchor_mismatch (the entry at the anchor's sequence has another hash: rewritten from there); null when intact"),
    lastHash: z.string().nullable().describe("The last entry's hash when intact and not empty; else null. Keep it with entriesChecked: they are the anchor of the next verification"),
    anchor: z.object({ sequence: z.number().int().min(1), hash: z.string() }).nullable().describe("The anchor checked against, as given; null without one"),
    correlationId: BODY_CORRELATION_ID,
  })
  .describe("The result of walking the tenant's audit hash chain.");

const AUDIT_PAGE_SCHEMA = schemaComponent("AuditListResponse", AuditPageResponse);
const AUDIT_VERIFICATION_SCHEMA = schemaComponent("AuditVerifyResponse", AuditVerificationResponse);

const EXPORT_HEADER = (description: string, type: "integer" | "string") => ({ description: `CSV responses only: ${description}`, schema: { type } });

const CSV_HEADER = [
  "id",
  "sequence",
  "at",
  "action",
  "targetType",
  "targetId",
  "actorType",
  "actorId",
  "correlationId",
  "details",
  "prevHash",
  "hash",
] as const;

/**
 * Entries read and written per step of a CSV export. A 50,000-entry export built whole took the one
 * thread that serves every request for 430-506 ms (soak probe); a page of 500 is a few ms, and the
 * server answers other requests between pages.
 */
const EXPORT_PAGE_ROWS = 500;

function auditCsvRow(e: AuditEntry): unknown[] {
  return [e.id, e.sequence, e.at, e.action, e.targetType, e.targetId, e.actor.type, e.actor.id, e.correlationId, e.details, e.prevHash, e.hash];
}

/**
 * The export as a stream: the header line, then one page of entries per pull, each after a turn of
 * the event loop so that no page runs back to back with the next while requests wait. A client that
 * goes away stops the reads. The status and headers are sent before the first page is read, so a
 * page that fails (an I/O error, the database closed at a stop) can only cut the body short: it is
 * logged with the request's correlation id, since no error answer can carry it any more.
 */
function auditCsvStream(pages: Generator<AuditEntry[]>, failed: (error: unknown) => void): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  let started = false;
  let cancelled = false;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (!started) {
        started = true;
        controller.enqueue(encoder.encode(csvLines([CSV_HEADER])));
        return;
      }
      await yieldToEventLoop();
      if (cancelled) return;
      try {
        const next = pages.next();
        if (next.done) controller.close();
        else controller.enqueue(encoder.encode(csvLines(next.value.map(auditCsvRow))));
      } catch (error) {
        failed(error);
        controller.error(error);
      }
    },
    cancel() {
      cancelled = true;
      pages.return(undefined);
    },
  });
}

export function auditRoutes(deps: HttpDeps) {
  return new Elysia()
    .use(guard(deps))
    .use(media())
    .get(
      "/v1/audit",
      ({ caller, query, request }) => {
        const filter = {
          action: query.action,
          targetType: query.targetType,
          from: query.from ? new Date(query.from) : undefined,
          to: query.to ? new Date(query.to) : undefined,
        };
        // Chosen before the handler (format, else Accept), so neither answer can become a 406 after the read.
        if (decidedRepresentation(request) === "text/csv") {
          const plan = planAuditExport(deps.db, caller.tenantId, filter, deps.config.auditExportCap);
          const headers: Record<string, string> = {
            "content-type": "text/csv; charset=utf-8",
            "content-disposition": `attachment; filename="audit-${deps.clock.now().toISOString().slice(0, 10)}.csv"`,
            "x-export-row-count": String(plan.rows),
          };
          if (plan.truncated) headers["x-export-truncated"] = "true";
          const pages = auditExportPages(deps.db, caller.tenantId, filter, plan, EXPORT_PAGE_ROWS);
          const failed = (error: unknown) =>
            deps.log.error({ correlationId: requestState(request).correlationId, err: error }, "audit export cut short: a page could not be read");
          return new Response(auditCsvStream(pages, failed), { headers });
        }
        const page = listAudit(deps.db, caller.tenantId, filter, { skip: query.skip, take: query.take });
        return { items: page.items, total: page.total, skip: query.skip, take: query.take };
      },
      {
        tenant: "Screening.Read",
        produces: JSON_OR_CSV,
        query: AuditQuery,
        detail: {
          ...secured("Screening.Read", {
            summary: "List or export the tenant's audit log, newest first",
            description:
              `Filters: action, targetType, from, to (ISO 8601 with offset). Paged with skip (default 0) and take (default 50, at most 500). format=csv (or, without format, an Accept that prefers text/csv) returns a CSV download of up to ${deps.config.auditExportCap.toLocaleString("en-US")} entries (this appliance's auditExportCap: 50,000 by default and at most, AML_AUDIT_EXPORT_CAP), newest first, ignoring skip and take; when more matched, the response carries X-Export-Truncated: true. Cells that a spreadsheet would evaluate as formulas are prefixed with a quote. format=json or format=csv wins over Accept; otherwise Accept, ranked by q-value, chooses between JSON (application/json, text/json, text/plain) and text/csv, JSON unless text/csv is preferred (the higher q-value; at equal q-values the type listed first), and an Accept that allows none of them is 406 before anything is read. Any other query parameter is 400.`,
            tags: ["Audit"],
          }),
          responses: {
            200: {
              description: "One page of entries (JSON), or the CSV export",
              headers: {
                "X-Export-Row-Count": EXPORT_HEADER("entries in the export", "integer"),
                "X-Export-Truncated": EXPORT_HEADER("true when more entries matched than the export holds; absent otherwise", "string"),
                "Content-Disposition": EXPORT_HEADER('attachment; filename="audit-YYYY-MM-DD.csv"', "string"),
              },
              content: {
                ...jsonContent(AUDIT_PAGE_SCHEMA),
                "text/csv": { schema: { type: "string", description: `A header line (${CSV_HEADER.join(",")}), then one line per entry` } },
              },
            },
            ...problemResponses([400, 401, 403, 406], {
              400: "A filter that is not valid (from/to not ISO 8601 with offset, to before from, take out of range: each named in errors[]), or an unknown query parameter.",
            }),
          },
        },
      },
    )
    .get(
      "/v1/audit/verify",
      ({ caller, query }) => {
        const anchor = query.sequence !== undefined && query.hash !== undefined ? { sequence: query.sequence, hash: query.hash } : null;
        return verifyAuditChainPaced(deps.db, caller.tenantId, anchor);
      },
      {
      tenant: "Screening.Read",
      produces: JSON_ONLY,
      query: VerifyQuery,
      detail: {
        ...secured("Screening.Read", {
          summary: "Verify the tenant's audit hash chain",
          description:
            "Walks the tenant's entries in sequence order and recomputes each SHA-256 hash (sha256(prevHash + \"\\n\" + canonical JSON of the entry)). It checks the entries there were when it began, 500 at a time, serving other requests in between, so a long chain does not hold up the appliance. Returns intact, the number of entries checked and, when broken, firstBrokenEntryId with a reason (hash_mismatch, link_mismatch, sequence_gap, unreadable_details). A chain proves nothing was changed or removed before its last entry, not that entries were not cut from its end: keep each verification's entriesChecked and lastHash outside the appliance and pass them as sequence and hash next time, and the chain must still have that entry with that hash (else truncated or anchor_mismatch). Any other query parameter is 400.",
          tags: ["Audit"],
        }),
        responses: {
          200: jsonResponse("The verification result", AUDIT_VERIFICATION_SCHEMA),
          ...problemResponses([400, 401, 403, 406], { 400: "sequence without hash or hash without sequence, either malformed, or an unknown query parameter." }),
        },
      },
      },
    );
}
