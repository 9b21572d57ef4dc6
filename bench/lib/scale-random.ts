import { closeSync, openSync, writeSync } from "node:fs";
import { Rng as SeededRng } from "../../test/eval/rng";
import { type NameTokens, titleCase } from "./scale-tokens";

/**
 * The eval's seeded mulberry32 generator plus the helpers the file generator needs; the same seed
 * gives the same files on every machine. Seed 0 is mapped to a fixed odd constant.
 */
export class Rng extends SeededRng {
  constructor(seed: number) {
    super(seed >>> 0 || 0x9e3779b9);
  }

  /** Inclusive range. */
  between(lo: number, hi: number): number {
    return lo + this.int(hi - lo + 1);
  }

  chance(p: number): boolean {
    return this.next() < p;
  }

  override pick<T>(list: readonly T[]): T {
    if (list.length === 0) throw new Error("pick from an empty list");
    return super.pick(list);
  }

  digits(n: number): string {
    let out = String(1 + this.int(9));
    while (out.length < n) out += String(this.int(10));
    return out;
  }

  hex(n: number): string {
    let out = "";
    while (out.length < n) out += (this.int(0x10000) | 0x10000).toString(16).slice(1);
    return out.slice(0, n);
  }

  letters(n: number): string {
    let out = "";
    for (let i = 0; i < n; i++) out += String.fromCharCode(65 + this.int(26));
    return out;
  }
}

/** A stable 32-bit seed per purpose, so changing one source's count never changes another's content. */
export function seedFor(base: number, purpose: string): number {
  let h = 0x811c9dc5 ^ base;
  for (let i = 0; i < purpose.length; i++) h = Math.imul(h ^ purpose.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

/** Buffered UTF-8 writer for files of hundreds of MB (synchronous; the generator is a batch job). */
export class TextSink {
  private readonly fd: number;
  private parts: string[] = [];
  private pending = 0;
  bytes = 0;

  constructor(path: string) {
    this.fd = openSync(path, "w");
  }

  write(text: string): void {
    this.parts.push(text);
    this.pending += text.length;
    if (this.pending >= 1 << 20) this.flush();
  }

  flush(): void {
    if (this.parts.length === 0) return;
    const buf = Buffer.from(this.parts.join(""), "utf8");
    writeSync(this.fd, buf);
    this.bytes += buf.length;
    this.parts = [];
    this.pending = 0;
  }

  close(): void {
    this.flush();
    closeSync(this.fd);
  }
}

export interface GenDate {
  year: number;
  month: number;
  day: number;
  /** day: full date; year: only the year is known; circa: about that year; range: between year and yearTo. */
  precision: "day" | "year" | "circa" | "range";
  yearTo?: number;
}

export interface GenPerson {
  given: string;
  middle?: string;
  surname: string;
  gender: "male" | "female";
  dob: GenDate;
  /** ISO 3166-1 alpha-2. */
  nationality: string;
  secondNationality?: string;
  birthCity: string;
  /** Another given name or spelling for an alias. */
  altGiven: string;
  altSurname: string;
  cyrillic?: string;
  arabic?: string;
}

const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];
export const pad2 = (n: number) => String(n).padStart(2, "0");
export const monthAbbr = (m: number) => MONTHS[m - 1] ?? "Jan";

export function genDate(rng: Rng, fromYear: number, toYear: number, partial = 0.2): GenDate {
  const year = rng.between(fromYear, toYear);
  const month = rng.between(1, 12);
  const day = rng.between(1, 28);
  const roll = rng.next();
  if (roll >= partial) return { year, month, day, precision: "day" };
  if (roll < partial * 0.6) return { year, month, day, precision: "year" };
  if (roll < partial * 0.85) return { year, month, day, precision: "circa" };
  return { year, month, day, precision: "range", yearTo: year + rng.between(1, 3) };
}

export const isoDay = (d: { year: number; month: number; day: number }) => `${d.year}-${pad2(d.month)}-${pad2(d.day)}`;

/** Particles that make a poor stand-alone given name or surname; they stay available as middle names. */
const PARTICLES = new Set(["al", "el", "bin", "ibn", "abu", "abd", "abdul", "van", "de", "von", "da", "di", "du", "la", "le", "ben", "bint", "ould"]);

/** The token pools with particles removed from the given-name and surname pools. */
export function personPools(tokens: NameTokens): { given: string[]; surname: string[]; middle: string[] } {
  const ok = (t: string) => t.length >= 3 && !PARTICLES.has(t.toLowerCase());
  return { given: tokens.given.filter(ok), surname: tokens.surname.filter(ok), middle: tokens.middle.filter((t) => t.length >= 2) };
}

export function genPerson(
  rng: Rng,
  tokens: NameTokens,
  pools: { given: string[]; surname: string[]; middle: string[] },
  countries: readonly string[],
  opts: { male?: number; middle?: number; fromYear?: number; toYear?: number } = {},
): GenPerson {
  const person: GenPerson = {
    given: rng.pick(pools.given),
    surname: rng.pick(pools.surname),
    gender: rng.chance(opts.male ?? 0.8) ? "male" : "female",
    dob: genDate(rng, opts.fromYear ?? 1940, opts.toYear ?? 1998),
    nationality: rng.pick(countries),
    birthCity: rng.pick(tokens.cities),
    altGiven: rng.pick(pools.given),
    altSurname: rng.pick(pools.surname),
  };
  if (rng.chance(opts.middle ?? 0.45)) person.middle = rng.pick(pools.middle);
  if (rng.chance(0.1)) person.secondNationality = rng.pick(countries);
  if (rng.chance(0.18)) person.cyrillic = `${rng.pick(tokens.cyrillicGiven)} ${rng.pick(tokens.cyrillicSurname)}`;
  else if (rng.chance(0.15)) person.arabic = `${rng.pick(tokens.arabic)} ${rng.pick(tokens.arabic)} ${rng.pick(tokens.arabic)}`;
  return person;
}

export function fullName(p: GenPerson): string {
  return p.middle ? `${p.given} ${p.middle} ${p.surname}` : `${p.given} ${p.surname}`;
}

/** Another way the same person is written: a second given name, a spelling variant of the surname, a short form. */
export function personAlias(rng: Rng, p: GenPerson, pools: { given: string[]; surname: string[] }): { given: string; surname: string } {
  const roll = rng.next();
  if (roll < 0.3) return { given: p.altGiven, surname: p.surname };
  if (roll < 0.5) return { given: p.given, surname: p.altSurname };
  if (roll < 0.65 && p.middle) return { given: `${p.given} ${p.middle}`, surname: p.altSurname };
  if (roll < 0.8) return { given: rng.pick(pools.given), surname: p.surname };
  return { given: p.altGiven, surname: rng.pick(pools.surname) };
}

export function orgName(rng: Rng, tokens: NameTokens): string {
  const words: string[] = [];
  const n = rng.between(1, 3);
  for (let i = 0; i < n; i++) words.push(rng.pick(tokens.orgWords));
  words.push(rng.pick(tokens.orgEnds));
  return words.join(" ");
}

export function vesselName(rng: Rng, tokens: NameTokens): string {
  return rng.chance(0.6) ? rng.pick(tokens.vesselWords) : `${rng.pick(tokens.vesselWords)} ${rng.pick(tokens.vesselWords)}`;
}

export { titleCase };
