/**
 * A family or associate link from one person to another. `relationship` is what the target is
 * to the person ("child" = the target is the person's child); `inverse` is what the person is
 * to the target. PepRelation.relationship uses the same reading: what the related PEP is to
 * the listed person.
 */
export interface PersonLink {
  targetId: string;
  relationship: string;
  inverse: string;
}

const INVERSE: Record<string, string> = { child: "parent", parent: "child" };

export function inverseRelationship(relationship: string): string {
  return INVERSE[relationship] ?? relationship;
}

/** Wikidata family properties and what the target of each is to the subject. */
export const FAMILY_PROPERTIES: Record<string, string> = {
  P26: "spouse",
  P451: "partner",
  P40: "child",
  P22: "parent",
  P25: "parent",
  P3373: "sibling",
  P1038: "relative",
};

/** Normalises free-text FtM relationship words ("son", "wife", "Family member of"). */
export function normalizeRelationship(text: string | undefined, fallback: string): string {
  const t = (text ?? "").toLowerCase();
  if (/\b(son|daughter|child|children|stepson|stepdaughter)\b/.test(t)) return "child";
  if (/\b(father|mother|parent)\b/.test(t)) return "parent";
  if (/\b(wife|husband|spouse|married)\b/.test(t)) return "spouse";
  if (/\b(partner)\b/.test(t)) return "partner";
  if (/\b(brother|sister|sibling)\b/.test(t)) return "sibling";
  return fallback;
}

export function linkTo(targetId: string, relationship: string): PersonLink {
  return { targetId, relationship, inverse: inverseRelationship(relationship) };
}
