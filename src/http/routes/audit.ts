import { Elysia } from "elysia";
import { z } from "zod";
import { exportAudit, listAudit } from "@/audit/list";
import { verifyAuditChain } from "@/audit/verify";
import { toCsv } from "@/exports/csv";
import type { HttpDeps } from "../deps";
import { guard, secured } from "../guard";
import { Paging } from "../paging";

const AuditQuery = z
  .object({
    action: z.string().min(1).max(100).optional().describe("Exact action, e.g. tenant.create, api_key.revoke, quota.set"),
    targetType: z.string().min(1).max(100).optional().describe("Exact target type, e.g. tenant, api_key, screening"),
    from: z.iso.datetime({ offset: true }).optional().describe("Entries at or after this instant"),
    to: z.iso.datetime({ offset: true }).optional().describe("Entries at or before this instant"),
    format: z.enum(["json", "csv"]).optional().describe("csv requests a CSV export (capped at 50,000 rows)"),
    ...Paging.shape,
  })
  .strict();

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

export function auditRoutes(deps: HttpDeps) {
  return new Elysia()
    .use(guard(deps))
    .get(
      "/v1/audit",
      ({ caller, query }) => {
        const filter = {
          action: query.action,
          targetType: query.targetType,
          from: query.from ? new Date(query.from) : undefined,
          to: query.to ? new Date(query.to) : undefined,
        };
        if (query.format === "csv") {
          const { items, truncated } = exportAudit(deps.db, caller.tenantId, filter, deps.config.auditExportCap);
          const rows = items.map((e) => [
            e.id,
            e.sequence,
            e.at,
            e.action,
            e.targetType,
            e.targetId,
            e.actor.type,
            e.actor.id,
            e.correlationId,
            e.details,
            e.prevHash,
            e.hash,
          ]);
          const headers: Record<string, string> = {
            "content-type": "text/csv; charset=utf-8",
            "content-disposition": `attachment; filename="audit-${deps.clock.now().toISOString().slice(0, 10)}.csv"`,
            "x-export-row-count": String(items.length),
          };
          if (truncated) headers["x-export-truncated"] = "true";
          return new Response(toCsv(CSV_HEADER, rows), { headers });
        }
        const page = listAudit(deps.db, caller.tenantId, filter, { skip: query.skip, take: query.take });
        return { items: page.items, total: page.total, skip: query.skip, take: query.take };
      },
      {
        tenant: "Screening.Read",
        query: AuditQuery,
        detail: secured("Screening.Read", {
          summary: "List or export the tenant's audit log, newest first",
          description:
            "Filters: action, targetType, from, to (ISO 8601 with offset). Paged with skip (default 0) and take (default 50, at most 500). format=csv returns a CSV download of up to 50,000 entries, newest first; when more matched, the response carries X-Export-Truncated: true. Cells that a spreadsheet would evaluate as formulas are prefixed with a quote.",
          tags: ["Audit"],
        }),
      },
    )
    .get("/v1/audit/verify", ({ caller }) => verifyAuditChain(deps.db, caller.tenantId), {
      tenant: "Screening.Read",
      detail: secured("Screening.Read", {
        summary: "Verify the tenant's audit hash chain",
        description:
          "Walks the tenant's entries in sequence order and recomputes each SHA-256 hash (sha256(prevHash + \"\\n\" + canonical JSON of the entry)). Returns intact, the number of entries checked and, when broken, firstBrokenEntryId with a reason (hash_mismatch, link_mismatch, sequence_gap, unreadable_details).",
        tags: ["Audit"],
      }),
    });
}
