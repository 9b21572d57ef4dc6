import { z } from "zod";
import { BODY_CORRELATION_ID as correlationId, instant, schemaComponent } from "@/http/openapi";
import { SOURCE_LISTS } from "./entity";

/**
 * Response shapes of the list routes, for the OpenAPI description only: responses are not validated
 * at run time (test/http/admin-media.test.ts checks real answers against them).
 */

const Source = z.enum(SOURCE_LISTS);
const Files = z.array(z.object({ name: z.string(), bytes: z.number().int().min(0), sha256: z.string() })).describe("The files the version was read from");
const Diff = z
  .object({ added: z.number().int(), removed: z.number().int(), changed: z.number().int(), unchanged: z.number().int() })
  .describe("Entities compared with the previous version of the source");

export const ListsVersionResponse = z
  .object({
    versionId: z.string().describe("The serving snapshot's id"),
    createdAt: instant("When the snapshot was recorded"),
    loadedAt: instant("When this server loaded it"),
    isDemo: z.boolean().describe("true for the FICTIONAL demo list"),
    notice: z.string().nullable().describe("The demo warning; null for real lists"),
    sources: z.array(
      z.object({
        source: Source,
        versionId: z.string(),
        format: z.string(),
        publishedAt: z.string().nullable().describe("Publication date from inside the file, as an ISO 8601 date-time in UTC (a date alone is its first instant, a time without offset is read as UTC); the file's text as written when it is no ISO 8601 date; null when it carries none"),
        ageDays: z.number().int().nullable().describe("Whole days since publishedAt, rounded down; a list is stale for a tenant when this is more than its maxDataAgeDays. null without a date (an undated list is always stale under a limit)"),
        importedAt: instant("When it was imported"),
        entityCount: z.number().int().min(0),
        nameCount: z.number().int().min(0),
        sha256: z.string(),
        files: Files,
        previousVersionId: z.string().nullable(),
        diff: Diff,
        isDemo: z.boolean(),
      }),
    ),
    coverage: z
      .object({
        selected: z.array(Source).describe("The lists a screen without options checks: the risk profile's, limited to those enabled for the tenant; [] when they leave none (every screen is then refused with 400)"),
        notLoaded: z.array(Source).describe("Selected lists the serving snapshot does not hold: NOT checked, so a Clear says nothing about them (each screening records them in listVersions.notLoaded)"),
        stale: z.array(Source).describe("Selected lists whose publication date is older than maxDataAgeDays, or unknown (a not-loaded list included); [] without a limit (each screening records them in listVersions.stale)"),
        maxDataAgeDays: z.number().int().nullable().describe("The risk profile's limit; null for none"),
      })
      .describe("The calling tenant's coverage by this snapshot"),
    correlationId,
  })
  .describe("The serving watchlist snapshot, per source where its data came from, and what the caller's screens check against it.");

const ListVersion = z.object({
  id: z.string(),
  source: Source,
  format: z.string(),
  publishedAt: z.string().nullable().describe("Publication date from inside the file, as an ISO 8601 date-time in UTC (a date alone is its first instant, a time without offset is read as UTC); the file's text as written when it is no ISO 8601 date; null when it carries none"),
  importedAt: instant("When it was imported"),
  importedBy: z.string(),
  sha256: z.string(),
  files: Files,
  entityCount: z.number().int().min(0),
  nameCount: z.number().int().min(0),
  previousVersionId: z.string().nullable(),
  diff: Diff,
  warnings: z.array(z.string()),
  isDemo: z.boolean(),
});

export const ImportReportResponse = z
  .object({
    snapshot: z
      .object({
        id: z.string(),
        createdAt: instant("When the snapshot was recorded"),
        versions: z.partialRecord(Source, z.string()).describe("source → versionId of every list the snapshot serves"),
        isDemo: z.boolean(),
      })
      .nullable()
      .describe("The new serving snapshot (the current one when nothing changed; null when there is none)"),
    results: z
      .array(z.object({ source: Source, status: z.enum(["imported", "unchanged"]), version: ListVersion }))
      .describe(
        "One entry per source uploaded. An unchanged source (the same files as its serving version) carries that version with a zero diff (added, removed and changed 0): nothing changed; the version's own diff against its predecessor is in GET /v1/lists/version",
      ),
    durationMs: z.number(),
    duplicateFiles: z
      .array(z.object({ file: z.string().describe("The file given again"), sameAs: z.string().describe("The earlier file with the same content, which was read") }))
      .describe("Files whose content is identical to an earlier file of the import (one file given twice, or a copy under another name): each content is read once; empty when there is none"),
    correlationId,
  })
  .describe("What the import recorded.");

export const LISTS_VERSION_SCHEMA = schemaComponent("ListsVersion", ListsVersionResponse);
export const IMPORT_REPORT_SCHEMA = schemaComponent("ListImportReport", ImportReportResponse);
