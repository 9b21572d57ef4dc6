import { z } from "zod";
import { type FieldIssue, ServiceError } from "@/errors";

/** zod issue paths as the dotted/bracketed field names problem bodies report ("rows[3].fullName"). */
export function issuePath(path: ReadonlyArray<PropertyKey>): string {
  let out = "";
  for (const part of path) {
    if (typeof part === "number") out += `[${part}]`;
    else out += out ? `.${String(part)}` : String(part);
  }
  return out;
}

const EXPECTED: Readonly<Record<string, string>> = {
  string: "a string",
  number: "a number",
  int: "an integer",
  boolean: "true or false",
  object: "an object",
  array: "an array",
};

/** What a value of zod's `expected` type is called in messages: "a number", "true or false". */
export function expectedValue(expected: string): string {
  return EXPECTED[expected] ?? `a value of type ${expected}`;
}

function received(input: unknown): string {
  if (input === null) return "null";
  if (Array.isArray(input)) return "an array";
  switch (typeof input) {
    case "string":
      return "a string";
    case "number":
      // A fraction is shown as itself: "must be an integer, not 2.5" says why, "not a number" would not.
      return Number.isInteger(input) || !Number.isFinite(input) ? "a number" : String(input);
    case "boolean":
      return "a boolean";
    case "object":
      return "an object";
    default:
      return typeof input;
  }
}

/**
 * zod's own wording for a wrong or missing value ("Invalid input: expected string, received
 * undefined") reads badly after a field name. Problem bodies print `${field} ${message}`, so these
 * messages never repeat the field: "fullName is required", "aliases must be an array, not a string",
 * and for the body itself "body is empty; send a JSON object". Schemas' own messages win over this
 * map; it only replaces zod's defaults, and only runs when an issue is raised (never on valid input).
 */
function plainMessage(issue: z.core.$ZodRawIssue): string | undefined {
  const atRoot = issue.path === undefined || issue.path.length === 0;
  if (issue.code === "invalid_type") {
    const expected = EXPECTED[issue.expected];
    if (atRoot) {
      // The body (or a bulk row) itself; an empty request body arrives as undefined (media.ts), while
      // "" is the JSON string `""` a client sent.
      const what = issue.expected === "array" ? "a JSON array" : issue.expected === "object" ? "a JSON object" : (expected ?? "a value");
      return issue.input === undefined ? `is empty; send ${what}` : `must be ${what}, not ${received(issue.input)}`;
    }
    if (issue.input === undefined) return "is required";
    // A value coerced to a number (a setting from the environment) arrives as NaN when it was not one.
    if (typeof issue.input === "number" && Number.isNaN(issue.input)) return `must be ${expected ?? "a number"}`;
    // JSON's 1e400 parses as Infinity, which zod calls not a number: "must be a number, not a number".
    // Where no number is expected (fullName: 1e999), the value is still named for what it was.
    if (typeof issue.input === "number" && !Number.isFinite(issue.input)) {
      const numeric = issue.expected === "number" || issue.expected === "int";
      return numeric || !expected ? `must be ${expected ?? "a number"} that is finite, not one too large to represent` : `must be ${expected}, not a number too large to represent`;
    }
    return expected ? `must be ${expected}, not ${received(issue.input)}` : undefined;
  }
  if ((issue.code === "invalid_value" || issue.code === "invalid_union") && !atRoot && issue.input === undefined) return "is required";
  if (issue.code === "too_small" || issue.code === "too_big") return boundMessage(issue);
  // Unquoted, as the app's own messages list choices ("must be one of OFAC, EU, UK, UN, WIKIDATA").
  if (issue.code === "invalid_value") return `must be one of ${issue.values.map((v) => (typeof v === "string" ? v : JSON.stringify(v))).join(", ")}`;
  return undefined;
}

/**
 * A range check's message in the field's own terms: "must not be empty", "must be at most 500",
 * "must be at least 2 characters", "must hold at most 1000 items"; zod's default reads
 * "Too big: expected number to be <=500". An exclusive bound reads "more than" or "less than".
 */
function boundMessage(issue: z.core.$ZodRawIssue<z.core.$ZodIssueTooSmall | z.core.$ZodIssueTooBig>): string | undefined {
  const small = issue.code === "too_small";
  const n = Number(small ? issue.minimum : issue.maximum);
  const words = issue.exact ? "exactly" : issue.inclusive === false ? (small ? "more than" : "less than") : small ? "at least" : "at most";
  // "At least 1" of a string or a collection is plainer said as not empty.
  const notEmpty = words === "at least" && n === 1;
  switch (issue.origin) {
    case "string":
      return notEmpty ? "must not be empty" : `must be ${words} ${n} character${n === 1 ? "" : "s"}`;
    case "array":
    case "set":
      return notEmpty ? "must not be empty" : `must hold ${words} ${n} item${n === 1 ? "" : "s"}`;
    case "number":
    case "int":
    case "bigint":
      return `must be ${words} ${n}`;
    default:
      return undefined;
  }
}

// Process-wide: every schema's default messages read the same, whichever layer (route validation,
// verb, CLI) reports them. Importing this module (as every reporter of zod issues does) installs it.
z.config({ customError: plainMessage });

/**
 * Issues listed per value (a request body, a bulk row). A body of 4 MiB can name 450,000 unknown
 * fields, and listing each one made a 400 eight times the size of the request (a bulk row's 200 even
 * more). Past this many, one last entry for the whole value counts the rest.
 */
export const MAX_LISTED_ISSUES = 20;

/**
 * The tightest range issue of each field and side. zod's int() checks the safe-integer range beside a
 * schema's own bound, so 1e23 for a limit of 5000 broke both, and "must be at most 9007199254740991"
 * listed beside "must be at most 5000" only confused.
 */
function tightestBounds(all: readonly z.core.$ZodIssue[]): Map<string, z.core.$ZodIssue> {
  const tightest = new Map<string, z.core.$ZodIssue>();
  for (const issue of all) {
    if (issue.code !== "too_big" && issue.code !== "too_small") continue;
    const key = `${issue.code} ${issuePath(issue.path)}`;
    const kept = tightest.get(key);
    const tighter =
      kept === undefined ||
      (issue.code === "too_big" && kept.code === "too_big" && Number(issue.maximum) < Number(kept.maximum)) ||
      (issue.code === "too_small" && kept.code === "too_small" && Number(issue.minimum) > Number(kept.minimum));
    if (tighter) tightest.set(key, issue);
  }
  return tightest;
}

/**
 * The issues as {field, message}. Where a value has the wrong type, zod may still run that value's
 * other checks (an empty body is both "not an array" and "shorter than 1"); only the type problem is
 * reported for that field, since the others contradict it. At most MAX_LISTED_ISSUES are listed.
 */
export function zodIssues(error: z.ZodError): FieldIssue[] {
  let wrongType: Set<string> | null = null;
  for (const issue of error.issues) {
    if (issue.code !== "invalid_type") continue;
    wrongType ??= new Set();
    wrongType.add(issuePath(issue.path));
  }
  const bounds = tightestBounds(error.issues);
  const issues: FieldIssue[] = [];
  for (const issue of error.issues) {
    if (issue.code === "unrecognized_keys") {
      for (const key of issue.keys) {
        issues.push({ field: issuePath([...issue.path, key]), message: "is not a known field" });
      }
      continue;
    }
    const field = issuePath(issue.path);
    if (wrongType !== null && issue.code !== "invalid_type" && wrongType.has(field)) continue;
    if ((issue.code === "too_big" || issue.code === "too_small") && bounds.get(`${issue.code} ${field}`) !== issue) continue;
    issues.push({ field, message: issue.message });
  }
  if (issues.length <= MAX_LISTED_ISSUES) return issues;
  const more = issues.length - MAX_LISTED_ISSUES;
  const listed = issues.slice(0, MAX_LISTED_ISSUES);
  // Field "" is the value itself, as for an empty body: "body has 449980 more issues, not listed".
  listed.push({ field: "", message: `has ${more} more issue${more === 1 ? "" : "s"}, not listed; fix those above first` });
  return listed;
}

/** "fullName is required; aliases[2] must not be empty": the issues as one sentence, `whole` naming the value itself. */
export function issueSummary(issues: readonly FieldIssue[], whole = "body"): string {
  return issues.map((i) => `${i.field || whole} ${i.message}`).join("; ");
}

/** Parses with a zod schema or throws a 400 VALIDATION_FAILED listing every offending field. */
export function parseInput<S extends z.ZodType>(schema: S, value: unknown, what = "Request"): z.infer<S> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const fieldIssues = zodIssues(result.error);
  throw new ServiceError("VALIDATION_FAILED", `${what} is invalid: ${issueSummary(fieldIssues)}`, { fieldIssues });
}

/**
 * An instant a client gives (a filter bound, a range): ISO 8601 with an offset (Z or ±hh:mm) and a
 * real calendar date. zod's own message, "Invalid ISO datetime", says neither what is expected nor
 * how to write it.
 */
export function offsetDateTime() {
  return z.iso.datetime({
    offset: true,
    error: "must be an ISO 8601 date-time with a UTC offset, such as 2025-01-31T00:00:00Z or 2025-01-31T01:00:00+01:00",
  });
}

/**
 * An object id in a path. No length or format rule here: an id that names nothing, however long
 * or malformed, is the route's 404 (the docs promise "unknown or malformed: 404"), never a 400.
 */
export function pathId(description: string) {
  return z.string().min(1).describe(description);
}
