import { clean } from "../common/text";
import { aliasKind, type OfacId, type OfacRecord } from "./types";

/** Identifier labels OFAC writes in Remarks, as "<label> <number> (<country>)". Longest first. */
const ID_LABELS = [
  "Passport", "Diplomatic Passport", "British National Overseas Passport", "Stateless Person Passport",
  "National ID No.", "National Foreign ID Number", "Cedula No.", "Identification Number", "D.N.I.", "C.U.R.P.",
  "C.U.R.P. #", "Personal ID Card", "Citizen's Card Number", "Kenyan ID No.", "Turkish Identification Number",
  "Numero de Identidad", "C.U.I.", "C.U.I.P.", "LE Number", "Electoral Registry No.", "Credencial electoral",
  "I.F.E.", "Birth Certificate Number", "Residency Number", "Public Security and Immigration No.",
  "Immigration No.", "Travel Document Number", "Driver's License No.", "SSN", "Refugee ID Card",
  "Stateless Person ID Card", "Tazkira National ID Card", "Moroccan Personal ID No.", "UAE Identification",
  "Cartilla de Servicio Militar Nacional", "Military Registration Number", "CNP (Personal Numerical Code)",
  "N.I.E.", "Seafarer's Identification Document", "VisaNumberID", "Tax ID No.", "R.F.C.", "R.F.C. #", "RFC",
  "V.A.T. Number", "Italian Fiscal Code", "Fiscal Code", "US FEIN", "NIT #", "RUC #", "RIF #", "C.U.I.T.", "RTN",
  "C.I.F.", "N.I.F.", "Romanian Tax Registration", "Numero Unico de Identificacao Tributaria (NUIT)",
  "Paraguayan tax identification number", "Registration ID", "Registration Number", "Business Registration Number",
  "Business Registration Document #", "Business Number", "Company Number", "UK Company Number",
  "Commercial Registry Number", "Government Gazette Number", "Unified Social Credit Code (USCC)",
  "United Social Credit Code Certificate (USCCC)", "Legal Entity Number", "Trade License No.", "C.R. No.",
  "Romanian C.R.", "Folio Mercantil No.", "Matricula Mercantil No", "Economic Register Number (CBLS)",
  "Chamber of Commerce Number", "Central Registration System Number", "Istanbul Chamber of Comm. No.",
  "Enterprise Number", "Branch Unit Number", "Registered Charity No.", "Certificate of Incorporation Number",
  "Dubai Chamber of Commerce Membership No.", "D-U-N-S Number", "Public Registration Number", "Organization Code",
  "License", "Permit Number", "SRE Permit No.", "MSB Registration Number", "Pilot License Number", "SWIFT/BIC",
  "MMSI", "ISIN", "BIK (RU)", "Aircraft Manufacturer's Serial Number (MSN)", "Previous Aircraft Tail Number",
  "Aircraft Construction Number (also called L/N or S/N or F/N)", "Vessel Registration Identification",
  "Afghan Money Service Provider License Number", "File Number",
].sort((a, b) => b.length - a.length);

const ID_REST = /^(.+?)(?: \(([^()]+)\))?((?: (?:issued|expires)\b.*)?)$/;

const LABEL_SET = new Set(ID_LABELS);

/** True for the identifier labels OFAC uses, including types we normalise to "other". */
export function isOfacIdLabel(label: string): boolean {
  return LABEL_SET.has(label);
}

function parseId(label: string, rest: string): OfacId {
  const m = ID_REST.exec(rest);
  const raw = clean(m?.[1] ?? rest);
  const imo = /^IMO (\S+)$/.exec(raw);
  const id: OfacId = imo ? { label: "IMO", number: imo[1] ?? "" } : { label, number: raw };
  if (m?.[2]) id.country = m[2].trim();
  const note = clean(m?.[3]);
  if (note) id.note = note;
  return id;
}

type RemarkRule = readonly [RegExp, (record: OfacRecord, m: RegExpExecArray) => void];

const RULES: readonly RemarkRule[] = [
  [/^DOB:? (.+)$/, (r, m) => r.dobs.push(m[1] ?? "")],
  [/^POB:? (.+)$/i, (r, m) => r.pobs.push(m[1] ?? "")],
  [/^nationality:? (.+)$/i, (r, m) => r.nationalities.push(m[1] ?? "")],
  [/^citizen:? (.+)$/i, (r, m) => r.citizenships.push(m[1] ?? "")],
  [/^Nationality of Registration (.+)$/i, (r, m) => r.nationalities.push(m[1] ?? "")],
  [/^Gender (Male|Female)$/i, (r, m) => (r.gender = (m[1] ?? "").toLowerCase())],
  [
    /^([afn])\.k\.a\.,? ['‘"](.+)['’"]$/i,
    (r, m) => r.aliases.push({ name: m[2] ?? "", kind: aliasKind(`${m[1]}ka`), quality: "weak" }),
  ],
  [
    /^Digital Currency Address - (\w+) (\S+)$/,
    (r, m) => r.ids.push({ label: `Digital Currency Address - ${m[1]}`, number: m[2] ?? "" }),
  ],
];

/**
 * Pulls the structured facts OFAC writes into the CSV Remarks ("DOB 12 Mar 1961; POB Baghdad,
 * Iraq; nationality Iraq; Passport A123 (Iraq); a.k.a. 'X'.") into the record. In the CSV,
 * quoted a.k.a.s in Remarks are OFAC's weak aliases (the XML marks the same names "weak").
 * Items we do not recognise stay only in the remarks text, which is kept whole.
 */
export function applyRemarks(record: OfacRecord, remarks: string): void {
  const text = clean(remarks).replace(/\.$/, "");
  if (!text) return;
  for (const raw of text.split(/;\s+/)) {
    const item = raw.trim().replace(/^alt\.\s+/i, "");
    if (RULES.some(([re, apply]) => applyRule(re, apply, record, item))) continue;
    const label = ID_LABELS.find((l) => item.startsWith(`${l} `));
    if (label) record.ids.push(parseId(label, item.slice(label.length + 1)));
  }
}

function applyRule(re: RegExp, apply: RemarkRule[1], record: OfacRecord, item: string): boolean {
  const m = re.exec(item);
  if (m) apply(record, m);
  return m !== null;
}
