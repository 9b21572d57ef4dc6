import { GIVEN_NAME_GROUPS } from "./data/given-names";
import { KOREAN_SPELLING_GROUPS } from "./data/korean";
import { NICKNAME_GROUPS } from "./data/nicknames.gen";

/**
 * Given-name equivalence: English nicknames (Bob~Robert), cross-language equivalents
 * (Yusuf~Joseph) and the romanisations of a Korean syllable (Jong~Chong). The relation is symmetric but deliberately not transitive: "ron" is a nickname of
 * both Aaron and Veronica, which must not make Aaron~Veronica.
 */
export type Equivalents = ReadonlyMap<string, readonly string[]>;

function addPair(map: Map<string, Set<string>>, a: string, b: string): void {
  if (a === b) return;
  let set = map.get(a);
  if (!set) {
    set = new Set();
    map.set(a, set);
  }
  set.add(b);
}

export function buildEquivalents(): Equivalents {
  const map = new Map<string, Set<string>>();
  for (const line of NICKNAME_GROUPS) {
    const [formal, ...nicks] = line.split(" ");
    for (const nick of nicks) {
      addPair(map, formal!, nick);
      addPair(map, nick, formal!);
    }
  }
  // Cross-language groups are closed within the group: each spelling is the same name.
  for (const line of [...GIVEN_NAME_GROUPS, ...KOREAN_SPELLING_GROUPS]) {
    const names = line.split(" ");
    for (const a of names) for (const b of names) addPair(map, a, b);
  }
  const out = new Map<string, readonly string[]>();
  for (const [name, set] of map) out.set(name, [...set].sort());
  return out;
}
