import { readFileSync, writeFileSync } from "node:fs";
import type { Command } from "commander";
import { ServiceError } from "@/errors";
import { issueSummary, zodIssues } from "@/lib/validate";
import { overridesFromPairs } from "@/profiles/pairs";
import { loadCurrentLists, localOptions, screenLocally } from "@/screening/local";
import { staleButLoaded } from "@/screening/list-versions";
import { Subject } from "@/screening/subject";
import { formatFromName, parseSubjectFile, type SubjectFileFormat, type SubjectFileRow } from "@/screening/subject-file";
import { DEMO_NOTICE } from "@/watchlists/version-view";
import { withContext } from "../context";
import { requireInputFiles } from "../paths";

interface ScreenOptions {
  name?: string;
  dob?: string;
  nationality?: string;
  alias?: string[];
  format?: SubjectFileFormat;
  out?: string;
  tenant?: string;
  threshold?: string;
  lists?: string;
  exactMatch?: boolean;
  set?: string[];
}

const collect = (value: string, previous: string[] = []) => [...previous, value];

export function registerScreen(program: Command): void {
  program
    .command("screen [file]")
    .description(
      "Screen subjects from a JSONL or CSV file (or one --name) against the data folder's current lists, without the server. Prints one JSON result per line; stores and charges nothing. Exit code 1 when a row was invalid.",
    )
    .option("--name <fullName>", "screen one subject instead of a file")
    .option("--dob <date>", "date of birth for --name: YYYY, YYYY-MM or YYYY-MM-DD")
    .option("--nationality <country>", "nationality for --name: ISO alpha-2 or alpha-3 code, or English name")
    .option("--alias <name>", "alias for --name (repeatable)", collect)
    .option("--format <format>", "jsonl or csv (default: from the file extension; - reads stdin as JSONL)")
    .option("--out <file>", "write results here instead of stdout")
    .option("--tenant <tenant>", "use this tenant's risk profile and enabled lists (default: the documented defaults)")
    .option("--threshold <score>", "minimum match score, 0.5–1")
    .option("--lists <lists>", "comma-separated lists, e.g. OFAC,UN")
    .option("--exact-match", "only exact (normalised) name matches")
    .option("--set <key=value>", "any other option, e.g. phonetic=false (repeatable)", collect)
    .action((file: string | undefined, options: ScreenOptions, command: Command) => {
      if (file !== undefined) requireInputFiles([file]);
      return withContext(command, async (ctx) => {
        const rows = readRows(file, options);
        const pairs = [...(options.set ?? [])];
        if (options.threshold !== undefined) pairs.push(`threshold=${options.threshold}`);
        if (options.lists !== undefined) pairs.push(`lists=${options.lists}`);
        if (options.exactMatch) pairs.push("exactMatch=true");
        const { options: resolved, suspended } = localOptions(ctx.db, options.tenant ?? null, overridesFromPairs(pairs));
        if (suspended) {
          process.stderr.write(`note: tenant ${options.tenant} is suspended: its profile is used here, but the API refuses its screens until \`aml tenant resume\`\n`);
        }
        const lists = await loadCurrentLists(ctx.db, ctx.log);
        if (lists.snapshot.isDemo) process.stderr.write(`${DEMO_NOTICE}\n`);
        const lines: string[] = [];
        let failed = 0;
        // One snapshot serves every row, so every screened row names the same lists not checked.
        let notChecked: string[] = [];
        let stale: string[] = [];
        const now = ctx.clock.now();
        for (const row of rows) {
          const result = screenLocally(lists, row, resolved, now);
          if ("error" in result) failed++;
          else {
            notChecked = result.listsNotLoaded;
            stale = staleButLoaded(result.listsStale, notChecked);
          }
          if (options.out) lines.push(JSON.stringify(result));
          else process.stdout.write(`${JSON.stringify(result)}\n`);
        }
        if (options.out) writeFileSync(options.out, lines.length > 0 ? `${lines.join("\n")}\n` : "");
        const unchecked = notChecked.length > 0 ? `; NOT checked, as the snapshot does not hold them: ${notChecked.join(", ")}` : "";
        const old = stale.length > 0 ? `; older than maxDataAgeDays (${resolved.maxDataAgeDays} days) or undated: ${stale.join(", ")}` : "";
        process.stderr.write(`screened ${rows.length - failed} of ${rows.length} subject(s) against snapshot ${lists.snapshot.id}${unchecked}${old}; nothing was stored or charged\n`);
        if (failed > 0) process.exitCode = 1;
      });
    });
}

/** The options a subject field was given by, to name in a refusal. */
const FLAG_OF: Record<string, string> = { fullName: "--name", dateOfBirth: "--dob", nationality: "--nationality", aliases: "--alias" };

/**
 * A subject typed as options is checked before anything is screened: a bad --dob is a mistake in the
 * command (exit 2), not a row of a file that was invalid (exit 1), which a script would read as a
 * finding. Named by the option it came from.
 */
function refuseInvalidSubject(input: Record<string, unknown>): void {
  const parsed = Subject.safeParse(input);
  if (parsed.success) return;
  const fieldIssues = zodIssues(parsed.error).map((issue) => {
    const [field = "", rest = ""] = issue.field.split(/(?=\[)/);
    return { field: `${FLAG_OF[field] ?? field}${rest}`, message: issue.message };
  });
  throw new ServiceError("VALIDATION_FAILED", `The subject is invalid: ${issueSummary(fieldIssues)}`, { fieldIssues });
}

function readRows(file: string | undefined, options: ScreenOptions): SubjectFileRow[] {
  if (options.name !== undefined) {
    if (file !== undefined) throw new ServiceError("INVALID_INPUT", "Give a file or --name, not both.");
    const input: Record<string, unknown> = { fullName: options.name };
    if (options.dob !== undefined) input.dateOfBirth = options.dob;
    if (options.nationality !== undefined) input.nationality = options.nationality;
    if (options.alias !== undefined) input.aliases = options.alias;
    refuseInvalidSubject(input);
    return [{ line: 1, input }];
  }
  if (file === undefined) throw new ServiceError("INVALID_INPUT", "Give a JSONL or CSV file of subjects, or --name.");
  const format = options.format ?? (file === "-" ? "jsonl" : formatFromName(file));
  if (format !== "jsonl" && format !== "csv") throw new ServiceError("INVALID_INPUT", `--format must be jsonl or csv, not ${String(format)}`);
  const text = readFileSync(file === "-" ? 0 : file, "utf8");
  const parsed = parseSubjectFile(text, format);
  for (const warning of parsed.warnings) process.stderr.write(`warning: ${warning}\n`);
  return parsed.rows;
}
