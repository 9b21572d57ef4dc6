import { decodeChunks, decodeText } from "../../decode";
import { ListParseError } from "../../errors";
import { type XmlNode, child, childrenNamed, deepText, readXml, textOf } from "./xml";
import { readOptionalZipEntries } from "./zip";

export interface SheetRow {
  /** 1-based spreadsheet row number. */
  row: number;
  cells: string[];
}

function columnIndex(ref: string): number {
  let n = 0;
  for (const ch of ref) {
    const code = ch.charCodeAt(0);
    if (code < 65 || code > 90) break;
    n = n * 26 + (code - 64);
  }
  return n - 1;
}

function firstSheetPath(file: string, bytes: Uint8Array): string {
  const meta = readOptionalZipEntries(file, bytes, ["xl/workbook.xml", "xl/_rels/workbook.xml.rels"]);
  const workbook = meta.get("xl/workbook.xml");
  const rels = meta.get("xl/_rels/workbook.xml.rels");
  if (!workbook || !rels) return "xl/worksheets/sheet1.xml";
  const sheetRel = /<(?:\w+:)?sheet\b[^>]*\br:id="([^"]+)"/.exec(decodeText(workbook).text)?.[1];
  const relsText = decodeText(rels).text;
  for (const m of relsText.matchAll(/<Relationship\b[^>]*>/g)) {
    const id = /\bId="([^"]+)"/.exec(m[0])?.[1];
    const target = /\bTarget="([^"]+)"/.exec(m[0])?.[1];
    if (id === sheetRel && target) return target.startsWith("/") ? target.slice(1) : `xl/${target}`;
  }
  return "xl/worksheets/sheet1.xml";
}

function sharedStringText(si: XmlNode): string {
  const direct = child(si, "t");
  if (direct) return direct.text;
  return childrenNamed(si, "r")
    .map((r) => child(r, "t")?.text ?? "")
    .join("");
}

/** Rows of the first worksheet as strings. Shared strings and inline strings are resolved. */
export function readXlsxRows(file: string, bytes: Uint8Array): SheetRow[] {
  const sheetPath = firstSheetPath(file, bytes);
  const entries = readOptionalZipEntries(file, bytes, ["xl/sharedStrings.xml", sheetPath]);
  const sheet = entries.get(sheetPath);
  if (!sheet) throw new ListParseError({ file, location: "zip container", reason: `missing worksheet ${sheetPath}` });
  const shared: string[] = [];
  const sst = entries.get("xl/sharedStrings.xml");
  if (sst) {
    readXml(() => decodeChunks(sst), {
      file: `${file}!xl/sharedStrings.xml`,
      capture: (path, name) => name === "si" && path.length === 1,
      onNode: (node) => shared.push(sharedStringText(node)),
    });
  }
  const rows: SheetRow[] = [];
  readXml(() => decodeChunks(sheet), {
    file: `${file}!${sheetPath}`,
    capture: (path, name) => name === "row" && path[path.length - 1] === "sheetData",
    onNode: (node) => {
      const rowNumber = Number(node.attrs.r ?? rows.length + 1);
      const cells: string[] = [];
      let next = 0;
      for (const c of childrenNamed(node, "c")) {
        const col = c.attrs.r ? columnIndex(c.attrs.r) : next;
        next = col + 1;
        const value = cellValue(c, shared, file, rowNumber);
        if (value !== "") cells[col] = value;
      }
      for (let k = 0; k < cells.length; k++) cells[k] ??= "";
      rows.push({ row: rowNumber, cells });
    },
  });
  return rows;
}

function cellValue(c: XmlNode, shared: readonly string[], file: string, row: number): string {
  const type = c.attrs.t;
  if (type === "inlineStr") {
    const is = child(c, "is");
    return is ? deepText(is) : "";
  }
  const v = textOf(child(c, "v"));
  if (type !== "s" || v === "") return v;
  const s = shared[Number(v)];
  if (s === undefined) {
    throw new ListParseError({ file, location: `row ${row}, cell ${c.attrs.r ?? "?"}`, reason: `shared string ${v} does not exist` });
  }
  return s;
}
