import { latinLookalikes, latinShapes } from "./lookalikes";

/**
 * Other ways to read a subject's name, screened beside the name as written; each listed entity keeps
 * its best score over all readings (screen.ts), so a reading can only add a match, never lose one.
 * Each is produced only when the name holds what it reads differently, so most names have none and
 * cost nothing more.
 */
export type QueryReading = "invisibleAsSpace" | "latinShapes" | "joinedInitials" | "withoutThe";

export const QUERY_READINGS: Readonly<Record<QueryReading, string>> = {
  invisibleAsSpace:
    "zero-width and other invisible characters read as spaces (as written they are dropped, so “Vladimir<U+200B>Putin” also reads “VladimirPutin”)",
  latinShapes:
    "letters of Cyrillic, Greek or Armenian that imitate Latin ones read as those Latin letters, where a word mixes scripts (as written the word's main script wins)",
  joinedInitials: "letters written with dots read as one word (“I.R.G.C.” as “IRGC”)",
  withoutThe: "a leading “The” left out",
};

// Invisible in print, and dropped inside a word as written ("Pu\u200Btin" is "Putin"); written
// between words instead of a space, they glue them together ("Vladimir\u200BPutin").
const INVISIBLE_RE = /[\u200B-\u200D\u2060\uFEFF\u00AD\u180E]|\u034F/;
const INVISIBLE_ALL_RE = new RegExp(INVISIBLE_RE.source, "g");
// Three or more single letters each followed by a dot, as a whole word ("I.R.G.C.", "H.A.M.A.S").
// Two are more often a person's initials ("V.V. Putin"), which matching reads letter by letter.
const DOTTED_LETTERS_RE = /(?<=^|\s)(?:\p{L}\.){2,}\p{L}\.?(?=\s|$)/gu;
const LEADING_THE_RE = /^\s*the\s+(?=\S)/i;

export function otherReadings(text: string): Array<{ reading: QueryReading; text: string }> {
  const out: Array<{ reading: QueryReading; text: string }> = [];
  const add = (reading: QueryReading, read: string) => {
    if (read !== text && read.trim() !== "" && !out.some((o) => o.text === read)) out.push({ reading, text: read });
  };
  if (INVISIBLE_RE.test(text)) add("invisibleAsSpace", text.replace(INVISIBLE_ALL_RE, " "));
  if (/[^\x00-\x7F]/.test(text)) {
    const nfkc = text.normalize("NFKC");
    const shapes = latinShapes(nfkc);
    // Only where a word's main script won over its Latin lookalikes does reading them as Latin differ.
    const asWritten = nfkc
      .split(/(\s+)/)
      .map((piece) => latinLookalikes(piece))
      .join("");
    if (shapes !== asWritten && shapes !== nfkc) add("latinShapes", shapes);
  }
  add("joinedInitials", text.replace(DOTTED_LETTERS_RE, (letters) => letters.replaceAll(".", "")));
  add("withoutThe", text.replace(LEADING_THE_RE, ""));
  return out;
}
