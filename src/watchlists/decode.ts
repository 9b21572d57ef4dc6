import { isUtf8 } from "node:buffer";

export type TextEncodingName = "utf-8" | "utf-16le" | "utf-16be" | "windows-1252";

export interface SniffedEncoding {
  encoding: TextEncodingName;
  /** Bytes of byte-order mark to skip. */
  bomLength: number;
}

/**
 * Decides how to read the bytes: a BOM wins, then UTF-16 without BOM (zero bytes in the first
 * characters), then UTF-8 when the bytes are valid UTF-8, else Windows-1252 (a superset of
 * Latin-1, which is how older list exports and hand-saved CSVs arrive).
 */
export function sniffEncoding(bytes: Uint8Array): SniffedEncoding {
  const [b0, b1, b2] = [bytes[0], bytes[1], bytes[2]];
  if (b0 === 0xef && b1 === 0xbb && b2 === 0xbf) {
    return { encoding: isUtf8(bytes.subarray(3)) ? "utf-8" : "windows-1252", bomLength: 3 };
  }
  if (b0 === 0xff && b1 === 0xfe) return { encoding: "utf-16le", bomLength: 2 };
  if (b0 === 0xfe && b1 === 0xff) return { encoding: "utf-16be", bomLength: 2 };
  if (bytes.length >= 4 && b0 !== 0 && b1 === 0 && bytes[3] === 0) return { encoding: "utf-16le", bomLength: 0 };
  if (bytes.length >= 4 && b0 === 0 && b1 !== 0 && bytes[2] === 0) return { encoding: "utf-16be", bomLength: 0 };
  return { encoding: isUtf8(bytes) ? "utf-8" : "windows-1252", bomLength: 0 };
}

export interface DecodedText {
  text: string;
  encoding: TextEncodingName;
  hadBom: boolean;
}

export function decodeText(bytes: Uint8Array): DecodedText {
  const { encoding, bomLength } = sniffEncoding(bytes);
  const text = new TextDecoder(encoding, { ignoreBOM: true }).decode(bytes.subarray(bomLength));
  return { text, encoding, hadBom: bomLength > 0 };
}

/** Decodes in slices so a very large file never becomes one giant string. */
export function* decodeChunks(bytes: Uint8Array, chunkBytes = 1 << 20): Generator<string> {
  const { encoding, bomLength } = sniffEncoding(bytes);
  const decoder = new TextDecoder(encoding, { ignoreBOM: true });
  for (let at = bomLength; at < bytes.length; at += chunkBytes) {
    const end = Math.min(at + chunkBytes, bytes.length);
    yield decoder.decode(bytes.subarray(at, end), { stream: end < bytes.length });
  }
}

/** First `maxBytes` decoded, for sniffing. A split multi-byte character at the end is dropped. */
export function decodeHead(bytes: Uint8Array, maxBytes = 64 * 1024): string {
  const { encoding, bomLength } = sniffEncoding(bytes);
  const head = bytes.subarray(bomLength, Math.min(bytes.length, bomLength + maxBytes));
  return new TextDecoder(encoding, { ignoreBOM: true }).decode(head, { stream: true });
}
