import type { z } from "zod";
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

export function zodIssues(error: z.ZodError): FieldIssue[] {
  const issues: FieldIssue[] = [];
  for (const issue of error.issues) {
    if (issue.code === "unrecognized_keys") {
      for (const key of issue.keys) {
        issues.push({ field: issuePath([...issue.path, key]), message: "is not a known field" });
      }
    } else {
      issues.push({ field: issuePath(issue.path), message: issue.message });
    }
  }
  return issues;
}

/** Parses with a zod schema or throws a 400 VALIDATION_FAILED listing every offending field. */
export function parseInput<S extends z.ZodType>(schema: S, value: unknown, what = "Request"): z.infer<S> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const fieldIssues = zodIssues(result.error);
  const summary = fieldIssues.map((i) => `${i.field || "body"} ${i.message}`).join("; ");
  throw new ServiceError("VALIDATION_FAILED", `${what} is invalid: ${summary}`, { fieldIssues });
}
