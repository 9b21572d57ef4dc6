import { latinLookalikes, latinShapes } from "./lookalikes";
import { foldPiece, splitPieces } from "./text";

/**
 * Other ways to read a subject's name, screened beside the name as written; each listed entity keeps
 * its best score over all readings (screen.ts), so a reading can only add a match, never lose one.
 * Each is produced only when the name holds what it reads differently, so most names have none and
 * cost nothing more.
 */
export type QueryReading = "invisibleAsSpace" | "latinShapes" | "joinedInitials" | "withoutThe" | "splitWords";

export const QUERY_READINGS: Readonly<Record<QueryReading, string>> = {
  invisibleAsSpace:
    "zero-width and other invisible characters read as spaces (as written they are dropped, so “Vladimir<U+200B>Putin” also reads “VladimirPutin”); a joiner inside a word of an Indic script is spelling and stays dropped",
  latinShapes:
    "letters of Cyrillic, Greek or Armenian that imitate Latin ones read as those Latin letters, where a word mixes scripts (as written the word's main script wins)",
  joinedInitials: "letters written with dots read as one word (“I.R.G.C.” as “IRGC”)",
  withoutThe: "a leading “The” left out",
  splitWords: "a word that no list has, read as the two listed words it is written of (“VladimirPutin” as “Vladimir Putin”)",
};

// Invisible in print, and dropped inside a word as written ("Pu\u200Btin" is "Putin"); written
// between words instead of a space, they glue them together ("Vladimir\u200BPutin").
const INVISIBLE_RE = /[\u200B-\u200D\u2060\uFEFF\u00AD\u180E]|\u034F/;
const INVISIBLE_ALL_RE = new RegExp(INVISIBLE_RE.source, "g");
// In the scripts of India and Sri Lanka a joiner beside a virama, or before a vowel sign, is spelling:
// it chooses how a cluster is drawn ("कान्‍ता" is one word, Kanta), so it is no word break there, and
// read as one it cuts a name into syllables that match listed names by accident. Elsewhere a joiner
// between two Indic words still glues them, and is still read as a space.
const VIRAMAS = "\u094D\u09CD\u0A4D\u0ACD\u0B4D\u0BCD\u0C4D\u0CCD\u0D4D\u0DCA";
const INDIC_JOINER_RE = new RegExp(`(?<=[${VIRAMAS}])[\u200C\u200D]|[\u200C\u200D](?=[${VIRAMAS}]|\\p{M})`, "gu");
// Three or more single letters each followed by a dot, as a whole word ("I.R.G.C.", "H.A.M.A.S").
// Two are more often a person's initials ("V.V. Putin"), which matching reads letter by letter.
const DOTTED_LETTERS_RE = /(?<=^|\s)(?:\p{L}\.){2,}\p{L}\.?(?=\s|$)/gu;
const LEADING_THE_RE = /^\s*the\s+(?=\S)/i;

/**
 * A word is split only when it is at least this long and both parts are at least SPLIT_PART_MIN
 * letters: nearly every one- or two-letter string is some listed name's word ("al", "li", "un"),
 * so shorter parts would split most long words somewhere.
 */
const SPLIT_WORD_MIN = 7;
const SPLIT_PART_MIN = 3;
/** Longer words are not two names written together. */
const SPLIT_WORD_MAX = 40;

/** What the lists hold, for the one reading that depends on them (`splitWords`). */
export interface ListedWords {
  /** Some listed name has this folded word. */
  has(word: string): boolean;
  /** Some listed name has both folded words. */
  together(a: string, b: string): boolean;
}

const NO_LISTED_WORDS: ListedWords = { has: () => false, together: () => false };

export function otherReadings(text: string, listed: ListedWords = NO_LISTED_WORDS): Array<{ reading: QueryReading; text: string }> {
  const out: Array<{ reading: QueryReading; text: string }> = [];
  const add = (reading: QueryReading, read: string) => {
    if (read !== text && read.trim() !== "" && !out.some((o) => o.text === read)) out.push({ reading, text: read });
  };
  if (INVISIBLE_RE.test(text)) {
    // Indic joiners are spelling (INDIC_JOINER_RE): read only the invisibles left without them.
    const breakable = text.replace(INDIC_JOINER_RE, "");
    if (INVISIBLE_RE.test(breakable)) add("invisibleAsSpace", breakable.replace(INVISIBLE_ALL_RE, " "));
  }
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
  const split = splitWords(text, listed);
  if (split !== null) add("splitWords", split);
  return out;
}

/**
 * Two words written as one ("VladimirPutin", "NOORMOHAMMAD Saqib") are not retrieved: the lists
 * index the words apart. Each Latin word of SPLIT_WORD_MIN letters or more that the lists do not
 * have is split where both parts are words of one listed name, the most even such split; null when
 * no word splits. Split words are written folded ("vladimir putin"), which folding leaves as is.
 */
function splitWords(text: string, listed: ListedWords): string | null {
  let changed = false;
  const pieces = splitPieces(text).map((piece) => {
    // Most pieces are shorter than a word worth splitting: skip folding them. (A ligature or "ß"
    // folds to two letters, so a six-character piece may fold to seven; two names in six
    // characters are not what this reading is for.)
    if (piece.length < SPLIT_WORD_MIN) return piece;
    const folded = foldPiece(piece);
    if (folded.script !== "latin") return piece;
    let split = false;
    const words = folded.tokens.map((word) => {
      const parts = evenestSplit(word, listed);
      if (parts === null) return word;
      split = true;
      return parts;
    });
    if (!split) return piece;
    changed = true;
    return words.join(" ");
  });
  return changed ? pieces.join(" ") : null;
}

function evenestSplit(word: string, listed: ListedWords): string | null {
  if (word.length < SPLIT_WORD_MIN || word.length > SPLIT_WORD_MAX || listed.has(word)) return null;
  // From the middle outwards, so the first split found is the most even.
  const middle = word.length >> 1;
  // Up to the split that leaves the longer side its shortest part (an odd length's last split,
  // "mohammad" + "ali", lies one further out on the tail's side than on the head's).
  for (let offset = 0; offset <= word.length - middle - SPLIT_PART_MIN; offset++) {
    for (const at of offset === 0 ? [middle] : [middle - offset, middle + offset]) {
      if (at < SPLIT_PART_MIN || word.length - at < SPLIT_PART_MIN) continue;
      const head = word.slice(0, at);
      const tail = word.slice(at);
      // Both parts in one listed name: "isabella" is "isa" + "bella" to the vocabulary, but no
      // listed name has both, and reading it so would screen one name in thirty twice for nothing.
      if (listed.has(head) && listed.has(tail) && listed.together(head, tail)) return `${head} ${tail}`;
    }
  }
  return null;
}
