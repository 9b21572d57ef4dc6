import { Elysia } from "elysia";
import { ServiceError } from "@/errors";
import type { HttpDeps } from "@/http/deps";
import { guard, secured } from "@/http/guard";
import { requestState } from "@/http/request-state";
import { ListParseError } from "./errors";
import { importListFiles } from "./import";
import type { WatchlistRuntime } from "./runtime";
import { listsVersionView } from "./version-view";

/** GET /v1/lists/version (not counted against quota) and the admin upload of official list files. */
export function listRoutes<Index>(deps: HttpDeps, runtime: () => WatchlistRuntime<Index>) {
  return new Elysia()
    .use(guard(deps))
    .get(
      "/v1/lists/version",
      () => {
        const loaded = runtime().current();
        if (!loaded) throw new ServiceError("NOT_READY", "No watchlist snapshot is loaded yet; retry shortly.");
        return listsVersionView(loaded, deps.clock.now());
      },
      {
        tenant: "Screening.Read",
        detail: secured("Screening.Read", {
          summary: "The serving watchlist version",
          description:
            "versionId is the serving snapshot (one immutable version per source); each source lists its publication date from inside the file, ageDays (compared by maxDataAgeDays), import time, entity and name counts, the files' sha256 and the diff against the previous version. isDemo/notice mark the fictional demo list. Not counted against the quota.",
          tags: ["Watchlists"],
        }),
      },
    )
    .post(
      "/v1/lists/import",
      async ({ admin, body, request, set }) => {
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
          const report = await importListFiles(deps.db, files, { actor: admin.actor, correlationId: requestState(request).correlationId });
          await runtime().refresh();
          set.status = 201;
          return report;
        } catch (error) {
          if (error instanceof ListParseError) {
            throw new ServiceError("VALIDATION_FAILED", `${error.message}. The serving lists are unchanged.`, {
              fieldIssues: [{ field: "file", message: error.message }],
            });
          }
          throw error;
        }
      },
      {
        admin: true,
        detail: secured("Admin", {
          summary: "Import official list files (air-gapped refresh)",
          description:
            "multipart/form-data with one or more files (OFAC CSV set/XML/advanced XML, EU FSF XML/CSV, UK OFSI ConList CSV/XLSX, FCDO list, UN XML, Wikidata JSON, FollowTheMoney JSON lines). Source and format are detected by content. Each changed source becomes a new immutable version; the serving index swaps atomically once loaded. A file that fails to parse changes nothing and the 400 names the file and location. 409 while another import runs.",
          tags: ["Watchlists"],
        }),
      },
    );
}
