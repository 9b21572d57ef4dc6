import { Elysia } from "elysia";
import { z } from "zod";
import { NoQuery } from "@/http/empty-input";
import { ServiceError } from "@/errors";
import type { HttpDeps } from "@/http/deps";
import { guard, secured } from "@/http/guard";
import { media } from "@/http/media";
import { JSON_ONLY } from "@/http/negotiate";
import { jsonResponse, NO_QUERY_PROBLEM, NO_WATCHLIST_PROBLEM, problemResponses } from "@/http/openapi";
import { callMeta } from "@/http/request-state";
import { listCoverage } from "@/screening/list-coverage";
import { CUT_FLOOR, CUT_SHARE } from "./importers/ofac/cut-short";
import { CutShortError, EditionConflictError, ListParseError, MASS_REMOVAL_FLOOR, MASS_REMOVAL_SHARE, MassRemovalError, NEWEST_RECORDS_CHECKED, NEWEST_RECORDS_FLOOR, OlderEditionError } from "./errors";
import { importListFiles } from "./import";
import { IMPORT_REPORT_SCHEMA, LISTS_VERSION_SCHEMA } from "./response-schemas";
import type { WatchlistRuntime } from "./runtime";
import { listsVersionView } from "./version-view";


const UPLOAD_BODY = {
  required: true,
  content: {
    "multipart/form-data": {
      schema: {
        type: "object" as const,
        required: ["file"],
        properties: {
          file: {
            type: "array" as const,
            items: { type: "string" as const, format: "binary" },
            description: "One or more list files (every file part is read, whatever its field name)",
          },
        },
      },
    },
  },
};

const ImportQuery = z
  .object({
    allowMassRemoval: z
      .enum(["true", "false"])
      .optional()
      .describe(
        `true publishes even when a source would lose more than ${MASS_REMOVAL_SHARE * 100}% of its serving entities or names (and at least ${MASS_REMOVAL_FLOOR}); without it such an import is 409 and nothing is published`,
      ),
    allowOlderEdition: z
      .enum(["true", "false"])
      .optional()
      .describe(
        "true publishes even a list edition published a day or more before the serving version of its source, or an OFAC edition that lacks the serving version's highest-numbered records; without it such an import is 409 and nothing is published",
      ),
  })
  .strict();

/** GET /v1/lists/version (not counted against quota) and the admin upload of official list files. */
export function listRoutes<Index>(deps: HttpDeps, runtime: () => WatchlistRuntime<Index>) {
  return new Elysia()
    .use(guard(deps))
    .use(media())
    .get(
      "/v1/lists/version",
      ({ caller }) => {
        const lists = runtime();
        const loaded = lists.current();
        if (!loaded) throw new ServiceError("NOT_READY", lists.notServingReason() ?? "No watchlist snapshot is loaded yet; retry shortly.");
        const now = deps.clock.now();
        return { ...listsVersionView(loaded, now), coverage: listCoverage(deps.db, caller.tenantId, loaded, now) };
      },
      {
        tenant: "Screening.Read",
        produces: JSON_ONLY,
        query: NoQuery,
        detail: {
          ...secured("Screening.Read", {
            summary: "The serving watchlist version",
            description:
              "versionId is the serving snapshot (one immutable version per source); each source lists its publication date from inside the file, ageDays (whole days; stale under a maxDataAgeDays it is more than), import time, entity and name counts, the files' sha256 and the diff against the previous version. isDemo/notice mark the fictional demo list. coverage is the caller's tenant's: the lists a screen without options checks (its risk profile's, limited to the lists enabled for it), those the snapshot does not hold (notLoaded: not checked, so a Clear says nothing about them) and those older than the profile's maxDataAgeDays (stale) — what every screening records in listVersions.notLoaded and listVersions.stale, known before screening anyone. Not counted against the quota. 503 while no snapshot is loaded. No query parameters.",
            tags: ["Watchlists"],
          }),
          responses: {
            200: jsonResponse("The serving snapshot", LISTS_VERSION_SCHEMA),
            ...problemResponses([400, 401, 403, 406, 503], {
              400: NO_QUERY_PROBLEM,
              503: NO_WATCHLIST_PROBLEM,
            }),
          },
        },
      },
    )
    .post(
      "/v1/lists/import",
      async ({ admin, body, query, request, set }) => {
        // Before anything is read from the upload; the response type (406) was settled before the handler.
        const type = request.headers.get("content-type") ?? "";
        if (!type.startsWith("multipart/form-data")) {
          throw new ServiceError("UNSUPPORTED_MEDIA_TYPE", "Upload list files as multipart/form-data (one or more `file` fields).");
        }
        const files: Array<{ name: string; bytes: Uint8Array }> = [];
        for (const value of Object.values((body ?? {}) as Record<string, unknown>).flat()) {
          if (value instanceof Blob) {
            const name = value instanceof File && value.name ? value.name : "upload";
            files.push({ name, bytes: new Uint8Array(await value.arrayBuffer()) });
          }
        }
        if (files.length === 0) throw new ServiceError("VALIDATION_FAILED", "No file in the upload.", { fieldIssues: [{ field: "file", message: "is required" }] });
        try {
          const report = await importListFiles(deps.db, files, callMeta(admin, request), {
            allowMassRemoval: query.allowMassRemoval === "true",
            allowOlderEdition: query.allowOlderEdition === "true",
          });
          await runtime().refresh();
          set.status = 201;
          return report;
        } catch (error) {
          if (error instanceof MassRemovalError) {
            throw new ServiceError("CONFLICT", error.message, { extensions: { removals: error.removals } });
          }
          if (error instanceof CutShortError) {
            throw new ServiceError("CONFLICT", error.message, { extensions: { cutShort: error.cuts } });
          }
          if (error instanceof OlderEditionError) {
            throw new ServiceError("CONFLICT", error.message, { extensions: { olderEditions: error.editions } });
          }
          if (error instanceof ListParseError) {
            const unchanged = /nothing was published/i.test(error.message) ? "" : ". The serving lists are unchanged.";
            throw new ServiceError("VALIDATION_FAILED", `${error.message}${unchanged}`, {
              fieldIssues: [{ field: "file", message: error.message }],
            });
          }
          // Like two versions of one list format (a ListParseError): the upload itself is inconsistent.
          if (error instanceof EditionConflictError) {
            throw new ServiceError("VALIDATION_FAILED", `${error.message}. The serving lists are unchanged.`, {
              fieldIssues: error.clashes.map((c) => ({
                field: "file",
                message: `${c.editions.map((e) => e.files.join(" + ")).join(" and ")} are editions of one ${error.source} list with different publication dates`,
              })),
              extensions: { editionConflicts: error.clashes.map((c) => ({ source: error.source, ...c })) },
            });
          }
          throw error;
        }
      },
      {
        admin: true,
        produces: JSON_ONLY,
        query: ImportQuery,
        detail: {
          ...secured("Admin", {
            summary: "Import official list files (air-gapped refresh)",
            description:
              `multipart/form-data with one or more files (OFAC CSV set/XML/advanced XML, EU FSF XML/CSV, UK OFSI ConList CSV/XLSX, FCDO list, UN XML, Wikidata JSON, FollowTheMoney JSON lines); every file part is read, up to maxUploadBytes (128 MiB by default; 413 above it); an upload that may be over maxJsonBodyBytes (declared so, or chunked) is read only once the caller is known to be an admin: 401 or 403 before any of it is read. Source and format are detected by content. Each changed source becomes a new immutable version; the serving index swaps atomically once loaded. 201 with the import report. A file that fails to parse changes nothing and the 400 names the file and location. Also 400, whatever is allowed and on a first import too: an OFAC CSV main table without its alias file (sdn.csv without alt.csv, cons_prim.csv without cons_alt.csv), a source whose files hold no entries, and a list dated more than two days after the appliance's clock. A file whose content is identical to another file of the upload is read once and named in duplicateFiles. Upload one edition of each list: files that are editions of the same list (sharing at least half of the smaller one's records) with different publication dates, or one of them undated, are 400 VALIDATION_FAILED naming each file with its format and date and how many records they share (editionConflicts: [{source, shared, editions: [{files, format, publishedAt, publicationDay}, …]}], publishedAt as a UTC instant and publicationDay the day compared, as the publisher wrote it; nothing is published); one list in two formats of the same day, and different lists of one source (OFAC's SDN and consolidated non-SDN lists), are merged into one version. 409 while another import runs (Retry-After gives the seconds until its lock would lapse; the lock of an import whose process has ended on this host is taken over at once), and 409 (with removals: [{source, removed, previous, namesLost, previousNames, format, previousFormat, listsLost?: [{files, records?}]}]) when a source would lose more than ${MASS_REMOVAL_SHARE * 100}% of its serving entities, or of its serving names, and at least ${MASS_REMOVAL_FLOOR}, or would leave out one of the lists it serves (OFAC's SDN and non-SDN lists; one of at least ${MASS_REMOVAL_FLOOR} records of which the import holds fewer than a tenth of the sampled ids found on no other list; over a version imported before versions kept their lists, OFAC's non-SDN list by its published file names, without records): a truncated or partial file, or an alias file cut short, looks like that, so nothing is published unless allowMassRemoval=true (the first real import over the demo list is never refused; switching the UK list between OFSI's Consolidated List and the FCDO list replaces every record id, so it needs allowMassRemoval=true). 409 too (with cutShort: [{source, file, evidence, role, shownBy, count?, of?}]), on a first import as well, when an OFAC CSV set's own files show one of them cut short, or from another download: more than ${CUT_SHARE * 100}% (and at least ${CUT_FLOOR}) of an alias or address file's rows name an ent_num the main table does not hold (evidence ent_nums_missing), as many of the main table's entries have no row in the address file, which OFAC gives every entry (entries_without_rows), or a file ends without the end-of-file mark (0x1A) the others of its download end with (no_end_marker); role says what the file is in its set (main, aliases, addresses, comments); nothing is published unless allowMassRemoval=true. 409 (with olderEditions: [{source, publishedAt, servingPublishedAt, format, servingFormat, newestRecordsMissing?, newestRecordsChecked?, highestIdHeld?}]) when a source's import was published 24 hours or more before its serving version, compared only between versions of the same format read from as many files (not for WIKIDATA, whose date is its latest record change; an undated file, or a serving version without a date, is not compared); and, whatever the dates, when an OFAC import lacks ${NEWEST_RECORDS_FLOOR} or more of the serving version's ${NEWEST_RECORDS_CHECKED} highest-numbered records (newestRecordsMissing, newestRecordsChecked, highestIdHeld; the dates null when undated), as OFAC numbers parties in the order it lists them, unless its own files show a main table cut short (cutShort, above): the parties designated since would screen as Clear, so nothing is published unless allowOlderEdition=true. An allowance that let a refusal through is named in that version's first warning and in the list.import audit entry (overridden). A source whose files are unchanged is reported with status unchanged, its serving version and a zero diff. Any other Content-Type is 415, and an Accept that allows no JSON type is 406, both before anything is imported. Any other query parameter is 400.`,
            tags: ["Watchlists"],
          }),
          requestBody: UPLOAD_BODY,
          responses: {
            201: jsonResponse("The import report", IMPORT_REPORT_SCHEMA),
            ...problemResponses([400, 401, 403, 406, 409, 413, 415], {
              400: "No file in the upload, a body that is not a valid multipart form (INVALID_INPUT), a file that fails to parse (named, with where it broke; nothing changes), editions of one list with different publication days (editionConflicts names them; nothing changes) or an unknown query parameter.",
              403: "The credential is an API key, or a bearer token without the admin role.",
              409: "Another import is running (Retry-After: the seconds until its lock would lapse, were it to stop; an import whose process ended on this host is taken over at once); a source would lose more than the allowed share of its serving entities or names, or would leave out one of the lists it serves (removals names it, with listsLost for a list left out; nothing was published); an OFAC CSV set's own files show one of them cut short (cutShort names it; nothing was published); or a source's import is an older edition than its serving version (olderEditions names it; nothing was published).",
              413: "The upload is over maxUploadBytes.",
              415: "UNSUPPORTED_MEDIA_TYPE: the body is not multipart/form-data. Refused before anything is imported.",
            }),
          },
        },
      },
    );
}
