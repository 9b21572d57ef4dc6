import { decodeChunks } from "../../decode";
import type { SheetRow } from "./xlsx";
import { type XmlNode, childrenNamed, readXml } from "./xml";
import { readZipEntries } from "./zip";

/** Beyond this many repeated empty cells we are in the sheet's padding, not in data. */
const PADDING_RUN = 1000;

function paragraphText(node: XmlNode): string {
  if (node.name === "#text") return node.text;
  if (node.name === "s") return " ".repeat(Number(node.attrs.c ?? "1"));
  if (node.name === "tab") return "\t";
  if (node.name === "line-break") return "\n";
  if (node.children.length === 0) return node.text;
  return node.children.map(paragraphText).join("");
}

function cellText(cell: XmlNode): string {
  const type = cell.attrs["value-type"];
  if (type === "date") return cell.attrs["date-value"] ?? "";
  if (type === "float" || type === "percentage" || type === "currency") return cell.attrs.value ?? "";
  if (type === "boolean") return cell.attrs["boolean-value"] ?? "";
  return childrenNamed(cell, "p").map(paragraphText).join("\n");
}

/**
 * Rows of the first table of an ODS spreadsheet. Repeated cells and rows are expanded, except
 * the empty padding runs spreadsheet tools write up to column 16384 / row 1048576.
 */
export function readOdsRows(file: string, bytes: Uint8Array): SheetRow[] {
  const content = readZipEntries(file, bytes, ["content.xml"]).get("content.xml");
  const rows: SheetRow[] = [];
  let tables = 0;
  let rowNumber = 0;
  readXml(() => decodeChunks(content ?? new Uint8Array()), {
    file: `${file}!content.xml`,
    capture: (path, name) => {
      if (name === "table") tables++;
      return name === "table-row" && tables === 1 && path.includes("table");
    },
    onNode: (node) => {
      const repeat = Number(node.attrs["number-rows-repeated"] ?? "1");
      const cells: string[] = [];
      for (const cell of node.children) {
        if (cell.name !== "table-cell" && cell.name !== "covered-table-cell") continue;
        const text = cellText(cell);
        const times = Number(cell.attrs["number-columns-repeated"] ?? "1");
        if (text === "" && times >= PADDING_RUN) break;
        for (let k = 0; k < times; k++) cells.push(text);
      }
      while (cells.length > 0 && cells[cells.length - 1] === "") cells.pop();
      const first = rowNumber + 1;
      rowNumber += repeat;
      if (cells.length === 0) return;
      for (let k = 0; k < repeat; k++) rows.push({ row: first + k, cells: [...cells] });
    },
  });
  return rows;
}
