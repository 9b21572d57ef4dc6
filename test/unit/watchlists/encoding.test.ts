import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { decodeText, sniffEncoding, type TextEncodingName } from "@/watchlists/decode";
import { parseListFiles } from "@/watchlists/parse-files";
import { FIXTURES, listFile, sharedUtf8, REAL_FILE_TIMEOUT } from "./shared-files";

setDefaultTimeout(REAL_FILE_TIMEOUT);

const ascii = (s: string) => [...s].map((c) => c.charCodeAt(0));

describe("text decoding", () => {
  test.each<[string, Uint8Array, TextEncodingName, string]>([
    ["UTF-8", new Uint8Array([0x43, 0x61, 0x66, 0xc3, 0xa9]), "utf-8", "Café"],
    ["UTF-8 with BOM", new Uint8Array([0xef, 0xbb, 0xbf, 0x43, 0x61, 0x66, 0xc3, 0xa9]), "utf-8", "Café"],
    ["Latin-1 (not valid UTF-8)", new Uint8Array([0x43, 0x61, 0x66, 0xe9]), "windows-1252", "Café"],
    ["Windows-1252 euro and quotes", new Uint8Array([0x80, 0x20, 0x93, 0x61, 0x94]), "windows-1252", "€ “a”"],
    ["UTF-16LE with BOM", new Uint8Array([0xff, 0xfe, 0x43, 0, 0xe9, 0]), "utf-16le", "Cé"],
  ])("%s", (_name, bytes, encoding, text) => {
    expect(sniffEncoding(bytes).encoding).toBe(encoding);
    expect(decodeText(bytes).text).toBe(text);
  });

  test("an OFAC CSV saved as Latin-1 keeps its accented names", async () => {
    const bytes = new Uint8Array([
      ...ascii('1,"CAF'),
      0xc9,
      ...ascii(' NACIONAL, S.A.",-0- ,"CUBA",-0- ,-0- ,-0- ,-0- ,-0- ,-0- ,-0- ,"a.k.a. \'CAF'),
      0xc9,
      ...ascii("'.\"\r\n\x1a"),
    ]);
    const alt = new Uint8Array([...ascii('1,1,"aka","CAF'), 0xc9, ...ascii(' CUBANO",-0- \r\n\x1a')]);
    const [list] = await parseListFiles([
      { name: "sdn.csv", bytes },
      { name: "alt.csv", bytes: alt },
    ]);
    expect(list?.entities[0]?.names.map((n) => n.name)).toEqual(["CAFÉ NACIONAL, S.A.", "CAFÉ", "CAFÉ CUBANO"]);
  });

  test("the EU CSV BOM does not end up in the first column name", async () => {
    const file = listFile("eu/fsf-fictional-1_1.csv", "eu.csv", FIXTURES);
    expect([...file.bytes.slice(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    const [list] = await parseListFiles([file]);
    expect(list?.publishedAt).toBe("2025-09-01");
  });

  test("a UN XML re-saved as UTF-16 parses the same", async () => {
    const text = sharedUtf8("un/snapshots/consolidated_2023-03-09.xml");
    const utf16 = new Uint8Array(2 + text.length * 2);
    utf16.set([0xff, 0xfe]);
    for (let i = 0; i < text.length; i++) {
      const code = text.charCodeAt(i);
      utf16[2 + i * 2] = code & 0xff;
      utf16[3 + i * 2] = code >> 8;
    }
    const [a] = await parseListFiles([{ name: "u16.xml", bytes: utf16 }]);
    const [b] = await parseListFiles([listFile("un/snapshots/consolidated_2023-03-09.xml")]);
    expect(a?.entities.length).toBe(956);
    expect(a?.entities).toEqual(b?.entities ?? []);
  });
});
