import type { z } from "zod";

/**
 * Control characters in stored text: C0 controls, DEL and C1 controls (NUL, tab, line breaks, ESC...).
 * They are never part of a name, a reference or a label, and stored as sent they reach terminals
 * (`aml tenant list`), logs and CSV exports, where ESC sequences rewrite the screen and line breaks
 * forge lines. Subject fields (screening/subject.ts) and admin fields (tenants/schemas.ts) refuse them.
 */
const CONTROL_RE = /[\u0000-\u001F\u007F-\u009F]/;

/** Whether the text holds a C0 or C1 control character or DEL. */
export function hasControlCharacter(text: string): boolean {
  return CONTROL_RE.test(text);
}

const CONTROLS_GLOBAL_RE = new RegExp(CONTROL_RE.source, "g");

/** The text with every control character hasControlCharacter refuses shown as U+FFFD, so it stays visible. */
export function showControlCharacters(text: string): string {
  return text.replace(CONTROLS_GLOBAL_RE, "\uFFFD");
}

export const CONTROL_MESSAGE = "must not contain control characters (such as NUL, tab or a line break)";

/**
 * A zod refinement that adds CONTROL_MESSAGE when the text holds one; true when it holds none. Run
 * after trimming, so surrounding whitespace (a trailing newline from a paste) is dropped, not refused.
 */
export function withoutControls(text: string, ctx: z.RefinementCtx): boolean {
  if (!hasControlCharacter(text)) return true;
  ctx.addIssue({ code: "custom", message: CONTROL_MESSAGE });
  return false;
}
