/**
 * Letters of other scripts that look like Latin ones (a subset of Unicode's confusables, UTS #39),
 * read by their shape where a piece of a name mixes scripts. "Vladimir Рutin" with a Cyrillic Р is
 * nobody's honest spelling: any-ascii would read the Р by its sound, "rutin", and the name would pass
 * screening as Clear. A piece written in one script alone ("Путин") is read by sound as before: that is
 * how Cyrillic, Greek and Armenian names are spelt, and their letters are confusable only by accident.
 *
 * Cherokee is the exception: its syllabary reads by sound as strings no list holds ("Ꮲ" → "tlv"), and
 * its letters are the classic lookalikes, so they are always read by shape.
 */

const CYRILLIC: Record<string, string> = {
  А: "A", В: "B", Е: "E", К: "K", М: "M", Н: "H", О: "O", Р: "P", С: "C", Т: "T", У: "Y", Х: "X",
  Ѕ: "S", І: "I", Ј: "J", Ү: "Y", Ӏ: "I", Ԛ: "Q", Ԝ: "W", Ԍ: "G", Һ: "H",
  а: "a", е: "e", о: "o", р: "p", с: "c", у: "y", х: "x", ѕ: "s", і: "i", ј: "j", ү: "y", ӏ: "l",
  ԁ: "d", ԛ: "q", ԝ: "w", һ: "h", ԍ: "g", ѵ: "v", Ѵ: "V",
};

const GREEK: Record<string, string> = {
  Α: "A", Β: "B", Ε: "E", Ζ: "Z", Η: "H", Ι: "I", Κ: "K", Μ: "M", Ν: "N", Ο: "O", Ρ: "P", Τ: "T",
  Υ: "Y", Χ: "X", α: "a", ι: "i", κ: "k", ν: "v", ο: "o", ρ: "p", υ: "u", χ: "x", ϲ: "c", ϳ: "j",
  Ϲ: "C", Ϳ: "J",
};

const ARMENIAN: Record<string, string> = {
  Ս: "U", Օ: "O", Տ: "S", Զ: "Z", ս: "u", օ: "o", ո: "n", հ: "h", զ: "q", ց: "g",
};

const CHEROKEE: Record<string, string> = {
  Ꭺ: "A", Ᏼ: "B", Ꮯ: "C", Ꭰ: "D", Ꭼ: "E", Ꮐ: "G", Ꮋ: "H", Ꮖ: "I", Ꭻ: "J", Ꮶ: "K", Ꮮ: "L", Ꮇ: "M",
  Ꮲ: "P", Ꮪ: "S", Ꭲ: "T", Ꮩ: "V", Ꮃ: "W", Ꮓ: "Z", Ꮢ: "R", Ꮟ: "b", Ᏻ: "G", Ꮻ: "O",
};

const SHAPES: ReadonlyMap<string, string> = new Map([CYRILLIC, GREEK, ARMENIAN, CHEROKEE].flatMap((table) => Object.entries(table)));
/** The other way, for a Cyrillic or Greek word with a stray Latin letter ("Васовa"): Latin → that script. */
const INTO: Readonly<Record<"cyrillic" | "greek", ReadonlyMap<string, string>>> = {
  cyrillic: reverse(CYRILLIC),
  greek: reverse(GREEK),
};
const CHEROKEE_RE = /[\u13A0-\u13FF\uAB70-\uABBF]/;
const LATIN_LETTER_RE = /[A-Za-z\u00C0-\u024F]/g;
const CYRILLIC_RE = /[\u0400-\u052F]/g;
const GREEK_RE = /[\u0370-\u03FF]/g;
const ARMENIAN_RE = /[\u0530-\u058F]/g;

function reverse(table: Record<string, string>): ReadonlyMap<string, string> {
  const out = new Map<string, string>();
  for (const [other, latin] of Object.entries(table)) if (!out.has(latin)) out.set(latin, other);
  return out;
}

function count(piece: string, re: RegExp): number {
  return piece.match(re)?.length ?? 0;
}

/** Every lookalike letter of `text` read as the Latin letter it imitates, whatever the majority. */
export function latinShapes(text: string): string {
  let out = "";
  for (const ch of text) out += SHAPES.get(ch) ?? ch;
  return out;
}

/**
 * `piece` (NFKC-normalised) read in one script where it mixes Latin, Cyrillic, Greek or Armenian
 * letters, or holds Cherokee; otherwise unchanged. The script with more letters wins: "Нasan" (one
 * Cyrillic letter in a Latin word) becomes "Hasan", and "Васовa" (a Latin a in a Cyrillic word, a typo
 * found in real list data) becomes "Васова", read "vasova" by sound. Without Latin letters, a mix of
 * the other scripts is read as Latin shapes: no honest spelling mixes them.
 */
export function latinLookalikes(piece: string): string {
  if (CHEROKEE_RE.test(piece)) return latinShapes(piece);
  const latin = count(piece, LATIN_LETTER_RE);
  const cyrillic = count(piece, CYRILLIC_RE);
  const greek = count(piece, GREEK_RE);
  const armenian = count(piece, ARMENIAN_RE);
  const others = cyrillic + greek + armenian;
  if (others === 0 || (latin === 0 && (cyrillic === others || greek === others || armenian === others))) return piece;
  if (latin >= others || latin === 0) return latinShapes(piece);
  // Mostly Cyrillic or Greek, with Latin letters among them: those are the strays.
  const into = cyrillic >= greek ? INTO.cyrillic : INTO.greek;
  let out = "";
  for (const ch of piece) out += into.get(ch) ?? ch;
  return out;
}

