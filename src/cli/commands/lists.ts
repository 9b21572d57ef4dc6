import type { Command } from "commander";
import type { AppContext } from "@/context";
import { coverageGaps, coverageOfTenants, type TenantListCoverage } from "@/screening/list-coverage";
import { latestSnapshot, listVersions, snapshotVersions } from "@/watchlists/store/read";
import type { ImportReport, ListVersion } from "@/watchlists/store/types";
import { MASS_REMOVAL_FLOOR, MASS_REMOVAL_SHARE, type RegressionAllowances } from "@/watchlists/errors";
import { ageInDays } from "@/watchlists/published-at";
import { DEMO_NOTICE } from "@/watchlists/version-view";
import { KEPT_WARNINGS, warningTotal } from "@/watchlists/warning-cap";
import { cliMeta, withContext } from "../context";
import { requireListPaths } from "../paths";
import { printJson, printTable } from "../output";
import { progressReporter } from "../progress";

export function registerLists(program: Command): void {
  const lists = program.command("lists").description("Import official watchlist files and show what is serving");

  lists
    .command("import <paths...>")
    .description("Import list files or folders (source and format detected by content); a running server picks them up within seconds")
    .option(
      "--allow-mass-removal",
      `publish even when a source would lose more than ${MASS_REMOVAL_SHARE * 100}% of its serving entities or names (at least ${MASS_REMOVAL_FLOOR}); or when an OFAC CSV set's own files show one of them cut short or from another download; without it such an import is refused, as a truncated or partial file, or an alias file cut short, looks like that`,
    )
    .option(
      "--allow-older-edition",
      "publish even a list edition published a day or more before the serving one, or an OFAC edition that lacks the serving version's highest-numbered records; without it such an import is refused, as the parties designated since would screen as Clear",
    )
    .action((paths: string[], options: RegressionAllowances, command: Command) => {
      // Before the context: a mistyped path must not create a data folder on the way to failing.
      requireListPaths(paths);
      return withContext(command, (ctx, json) => importLists(ctx, paths, json, options), { setsUp: true });
    });

  lists
    .command("status")
    .description("The serving snapshot and its versions; --history for every version imported")
    .option("--history", "list every imported version, newest first")
    .option("--warnings", "also print every warning recorded for the versions listed (an import prints only the first few)")
    .action((options: { history?: boolean; warnings?: boolean }, command: Command) =>
      withContext(command, (ctx, json) => {
        const snapshot = latestSnapshot(ctx.db);
        const now = ctx.clock.now();
        const serving = snapshot ? snapshotVersions(ctx.db, snapshot) : [];
        const versions = options.history ? listVersions(ctx.db, 1000) : serving;
        // --history mixes the serving versions with the ones they replaced: each says which it is.
        const servingIds = new Set(serving.map((v) => v.id));
        const coverage = snapshot ? coverageOfTenants(ctx.db, { snapshot, versions: serving }, now) : [];
        if (json) {
          printJson({ snapshot, versions: versions.map((v) => ({ ...v, serving: servingIds.has(v.id), ageDays: ageInDays(v.publishedAt, now) })), coverage });
          return;
        }
        if (!snapshot) {
          console.log("No list has been imported yet: import the official files with `aml lists import`; `aml serve --demo` loads the FICTIONAL demo list instead.");
          return;
        }
        console.log(`serving snapshot ${snapshot.id} (created ${snapshot.createdAt})`);
        if (snapshot.isDemo) console.log(`\n${DEMO_NOTICE}\n`);
        printTable(
          versions.map((v) => ({
            serving: servingIds.has(v.id) ? "yes" : "no",
            source: v.source,
            // --history lists the demo list's versions beside the official ones: each says what it is.
            format: v.isDemo ? `${v.format} (FICTIONAL demo)` : v.format,
            published: v.publishedAt ?? "(not in file)",
            ageDays: ageInDays(v.publishedAt, now),
            entities: v.entityCount,
            names: v.nameCount,
            imported: v.importedAt,
            added: v.diff.added,
            removed: v.diff.removed,
            changed: v.diff.changed,
            version: v.id,
          })),
          [...(options.history ? ["serving"] : []), "source", "format", "published", "ageDays", "entities", "names", "added", "removed", "changed", "imported", "version"],
        );
        printCoverageGaps(coverage);
        if (options.warnings) printAllWarnings(versions);
      }),
    );
}

/**
 * The lists tenants' screens select that the snapshot does not hold, or holds with data older than
 * their risk profile allows: a Clear says nothing about the first, and rests on old data for the
 * second. Printed so the operator who imports the files sees the gap, not only the tenant.
 */
function printCoverageGaps(coverage: readonly TenantListCoverage[]): void {
  const gaps = coverageGaps(coverage);
  for (const [list, tenants] of gaps.notLoaded) {
    console.log(`\nnot loaded: ${list}, selected by ${tenants.length} tenant(s): ${tenants.join(", ")}. Their screens do NOT check it, so a Clear says nothing about it: import its files.`);
  }
  for (const [list, tenants] of gaps.stale) {
    console.log(`\nstale: ${list}, older than allowed (or undated) for ${tenants.length} tenant(s): ${tenants.join(", ")}. Their screens name it in listVersions.stale: import a newer edition.`);
  }
}

/** Warnings an import prints per source; the rest are counted, and `lists status --warnings` prints every one kept. */
const SHOWN_WARNINGS = 5;
/** KEPT_WARNINGS as the messages write it. */
const KEPT = KEPT_WARNINGS.toLocaleString("en-US");

function printAllWarnings(versions: readonly ListVersion[]): void {
  for (const v of versions) {
    const total = warningTotal(v.warnings);
    let summary = total === 0 ? "no warnings" : `${total} warning(s)`;
    if (total > v.warnings.length) summary += ` (the first ${KEPT} kept; the last line counts the rest)`;
    console.log(`\n${v.source} version ${v.id}: ${summary}`);
    for (const w of v.warnings) printWarning(v.source, w);
  }
}

function printWarning(source: string, warning: string): void {
  console.log(`warning (${source}): ${warning}`);
}

async function importLists(ctx: AppContext, paths: string[], json: boolean, allow: RegressionAllowances): Promise<void> {
  // Loaded on use: parsers for every official format are only needed by this command.
  const { importListFiles, readListPath } = await import("@/watchlists/import");
  const files = paths.flatMap((p) => readListPath(p));
  const progress = progressReporter(!json);
  progress.phase(`parsing ${files.length} file(s)`);
  const report = await importListFiles(ctx.db, files, cliMeta(), {
    // Commander names the two flags' options as RegressionAllowances does.
    ...allow,
    onParsed: (parsed) => progress.phase(`parsed ${parsed.map((p) => `${p.source} (${p.format}, ${p.entities.length})`).join(", ")}`),
    onProgress: (event) => progress.update(`${event.source} ${event.phase}`, event.done),
  });
  progress.done();
  if (json) {
    printJson(report);
    return;
  }
  printImportReport(report);
  // The import is published by now: a failure to report coverage must not read as a failed import.
  try {
    const snapshot = latestSnapshot(ctx.db);
    if (snapshot) printCoverageGaps(coverageOfTenants(ctx.db, { snapshot, versions: snapshotVersions(ctx.db, snapshot) }, ctx.clock.now()));
  } catch (error) {
    console.log(`\nwarning: the import is published, but the tenants' coverage could not be read (${error instanceof Error ? error.message : String(error)}); see aml lists status`);
  }
}

function printImportReport(report: ImportReport): void {
  printTable(
    report.results.map((r) => ({
      source: r.source,
      status: r.status,
      format: r.version.format,
      published: r.version.publishedAt ?? "(not in file)",
      entities: r.version.entityCount,
      names: r.version.nameCount,
      added: r.version.diff.added,
      removed: r.version.diff.removed,
      changed: r.version.diff.changed,
      warnings: warningTotal(r.version.warnings),
    })),
    ["source", "status", "format", "published", "entities", "names", "added", "removed", "changed", "warnings"],
  );
  console.log(`\nsnapshot ${report.snapshot?.id ?? "-"} in ${(report.durationMs / 1000).toFixed(1)} s`);
  for (const d of report.duplicateFiles) {
    console.log(d.file === d.sameAs ? `note: ${d.file} was given more than once: read once` : `note: ${d.file} has the same content as ${d.sameAs}: read once`);
  }
  for (const r of report.results) printFirstWarnings(r.source, r.version.warnings);
}

function printFirstWarnings(source: string, warnings: readonly string[]): void {
  for (const w of warnings.slice(0, SHOWN_WARNINGS)) printWarning(source, w);
  const hidden = warningTotal(warnings) - Math.min(SHOWN_WARNINGS, warnings.length);
  if (hidden > 0) {
    console.log(
      `… ${hidden} more ${source} warning(s) not shown: \`aml lists status --warnings\` prints them (or \`aml --json lists status\`, versions[].warnings; the first ${KEPT} of a list are kept)`,
    );
  }
}
