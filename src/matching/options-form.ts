import { PEP_TIER_CODES, type PepTier } from "../watchlists/entity";
import { RiskProfileOverrides, type SPEC_OPTION_NAMES } from "./options";

/**
 * Multipart uploads send every option as a string. This turns them into typed values and then
 * applies the same strict schema as JSON: "" means null (use the profile), booleans accept
 * true/false/1/0/yes/no, lists are comma-separated ("OFAC,UN"), tiers accept names or PEP1..PEP4.
 * Values that do not convert are passed through unchanged so zod reports them with its message.
 */
type Kind = "number" | "boolean" | "list" | "tiers" | "text";

const KINDS: Record<(typeof SPEC_OPTION_NAMES)[number], Kind> = {
  threshold: "number",
  exactMatch: "boolean",
  adverseMedia: "boolean",
  monitor: "boolean",
  lists: "list",
  pepTiers: "tiers",
  coveragePreset: "text",
  maxDataAgeDays: "number",
  phonetic: "boolean",
  nicknames: "boolean",
  trigramFloor: "number",
  candidateLimit: "number",
  resultCap: "number",
  dobYearTolerance: "number",
  dobMismatchPenalty: "number",
  dobMismatchSurfacing: "boolean",
  dobMismatchHighScoreThreshold: "number",
};

const TRUE = new Set(["true", "1", "yes", "on"]);
const FALSE = new Set(["false", "0", "no", "off"]);
const TIER_BY_CODE = new Map(Object.entries(PEP_TIER_CODES).map(([tier, code]) => [code, tier as PepTier]));

function convert(kind: Kind, raw: string): unknown {
  const text = raw.trim();
  if (text === "" || text.toLowerCase() === "null") return null;
  switch (kind) {
    case "number": {
      const n = Number(text);
      return Number.isFinite(n) ? n : text;
    }
    case "boolean": {
      const lower = text.toLowerCase();
      return TRUE.has(lower) ? true : FALSE.has(lower) ? false : text;
    }
    case "list":
      return text.split(",").map((s) => s.trim().toUpperCase()).filter(Boolean);
    case "tiers":
      return text.split(",").map((s) => s.trim()).filter(Boolean).map((s) => TIER_BY_CODE.get(s.toUpperCase()) ?? s);
    case "text":
      return text;
  }
}

/** Parses string form fields into overrides; unknown field names are rejected by the strict schema. */
export function parseFormOptions(form: Readonly<Record<string, string | null | undefined>>) {
  const converted: Record<string, unknown> = {};
  for (const [key, raw] of Object.entries(form)) {
    if (raw === undefined) continue;
    const kind = KINDS[key as keyof typeof KINDS];
    converted[key] = kind && raw !== null ? convert(kind, raw) : raw;
  }
  return RiskProfileOverrides.safeParse(converted);
}
