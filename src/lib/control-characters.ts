import type { z } from "zod";

/**
 * Control characters in stored text: C0 controls, DEL and C1 controls (NUL, tab, line breaks, ESC...),
 * the line and paragraph separators (U+2028, U+2029), and the bidirectional embeddings, overrides and
 * isolates (U+202A–U+202E, U+2066–U+2069). They are never part of a name, a reference or a label, and
 * stored as sent they reach terminals (`aml tenant list`), logs and CSV exports, where ESC sequences
 * rewrite the screen, line breaks forge lines, and an override shows "\u202Erehtaeflliuq siroB" as
 * "Boris Quillfeather" beside another row's verdict. Subject fields (screening/subject.ts) and admin
 * fields (tenants/schemas.ts) refuse them. The marks LRM, RLM and ALM (U+200E, U+200F, U+061C) stay
 * allowed: right-to-left names copied from documents carry them, and they reorder nothing around them.
 */
const CONTROL_RE = /[\u0000-\u001F\u007F-\u009F\u2028\u2029\u202A-\u202E\u2066-\u2069]/;

/** Whether the text holds a control character: C0, DEL, C1, a line or paragraph separator, or a bidirectional control. */
export function hasControlCharacter(text: string): boolean {
  return CONTROL_RE.test(text);
}

const CONTROLS_GLOBAL_RE = new RegExp(CONTROL_RE.source, "g");

/** The text with every control character hasControlCharacter refuses shown as U+FFFD, so it stays visible. */
export function showControlCharacters(text: string): string {
  return text.replace(CONTROLS_GLOBAL_RE, "\uFFFD");
}

export const CONTROL_MESSAGE = "must not contain control characters (such as NUL, tab, a line break or a bidirectional override)";

/**
 * A zod refinement that adds CONTROL_MESSAGE when the text holds one; true when it holds none. Run
 * after trimming, so surrounding whitespace (a trailing newline from a paste) is dropped, not refused.
 */
export function withoutControls(text: string, ctx: z.RefinementCtx): boolean {
  if (!hasControlCharacter(text)) return true;
  ctx.addIssue({ code: "custom", message: CONTROL_MESSAGE });
  return false;
}
