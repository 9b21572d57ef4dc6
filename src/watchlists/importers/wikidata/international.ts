/**
 * Positions in international bodies (FATF "international organisation PEPs"). A position is
 * international when its Wikidata item, or an item it belongs to (P17, P1001, P361, P2389),
 * is one of these bodies, or when its title names one. Kept short on purpose: only Q-ids we
 * are sure of; the keyword list covers the rest.
 */
export const INTERNATIONAL_BODY_QIDS: ReadonlySet<string> = new Set([
  "Q1065", // United Nations
  "Q458", // European Union
  "Q7184", // NATO
  "Q8880", // European Commission
  "Q8889", // European Parliament
]);

const BODY_KEYWORDS = new RegExp(
  [
    "United Nations",
    "\\bUN Secretary",
    "European (?:Commission|Commissioner|Parliament|Council|Central Bank|Court|Union|Investment Bank|Ombudsman|Court of Auditors)",
    "Council of the European Union",
    "\\bNATO\\b",
    "North Atlantic Treaty",
    "International Monetary Fund",
    "\\bIMF\\b",
    "World Bank",
    "World Health Organi[sz]ation",
    "World Trade Organi[sz]ation",
    "Council of Europe",
    "\\bOSCE\\b",
    "Organi[sz]ation for Security and Co-?operation",
    "African Union",
    "Arab League",
    "League of Arab States",
    "\\bOECD\\b",
    "Organi[sz]ation for Economic Co-?operation",
    "International Criminal Court",
    "International Court of Justice",
    "\\bInterpol\\b",
    "\\bUNESCO\\b",
    "\\bUNICEF\\b",
    "\\bUNHCR\\b",
    "Bank for International Settlements",
    "\\bASEAN\\b",
    "Gulf Cooperation Council",
    "\\bOPEC\\b",
    "Shanghai Cooperation",
    "Eurasian Economic",
    "Commonwealth Secretary",
    "International Atomic Energy Agency",
    "Organi[sz]ation of Islamic Cooperation",
    "(?:Inter-American|Asian|African) Development Bank",
    "European Bank for Reconstruction",
  ].join("|"),
  "i",
);

/** A country's envoy to an international body holds a national post, not an international one. */
const NATIONAL_ENVOY = /\b(?:ambassador|permanent representative|envoy|delegate of)\b/i;

export function isInternationalTitle(title: string): boolean {
  return BODY_KEYWORDS.test(title) && !NATIONAL_ENVOY.test(title);
}

export function isInternationalPosition(title: string, relatedIds: readonly string[]): boolean {
  if (NATIONAL_ENVOY.test(title)) return false;
  return relatedIds.some((id) => INTERNATIONAL_BODY_QIDS.has(id)) || BODY_KEYWORDS.test(title);
}
