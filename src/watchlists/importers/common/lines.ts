import { ListParseError } from "../../errors";

export type LineSource = AsyncIterable<string> | Iterable<string>;

/** Splits text into lines without copying the whole text into an array. */
export function* textLines(text: string): Generator<string> {
  let start = 0;
  while (start < text.length) {
    let end = text.indexOf("\n", start);
    if (end < 0) end = text.length;
    yield text.charCodeAt(end - 1) === 13 ? text.slice(start, end - 1) : text.slice(start, end);
    start = end + 1;
  }
}

const NEWLINE = 10;

/**
 * Lines of UTF-8 bytes, decoded a slice at a time so a 1 GB line-JSON file is never one string.
 * Invalid UTF-8 is an error: line-JSON is UTF-8 by definition.
 */
export function* byteLines(bytes: Uint8Array, file: string, sliceBytes = 8 << 20): Generator<string> {
  const decoder = new TextDecoder("utf-8", { fatal: true, ignoreBOM: false });
  let at = 0;
  let line = 1;
  while (at < bytes.length) {
    let end = Math.min(at + sliceBytes, bytes.length);
    if (end < bytes.length) {
      const nl = bytes.lastIndexOf(NEWLINE, end - 1);
      end = nl >= at ? nl + 1 : bytes.indexOf(NEWLINE, end) + 1 || bytes.length;
    }
    let text: string;
    try {
      text = decoder.decode(bytes.subarray(at, end));
    } catch (err) {
      throw new ListParseError({ file, location: `line ${line}`, reason: "invalid UTF-8 in line-JSON", cause: err });
    }
    for (const l of textLines(text)) {
      line++;
      yield l;
    }
    at = end;
  }
}

/** Lines from a byte stream (e.g. `Bun.file(path).stream()`), for the storage layer's batch import. */
export async function* streamLines(stream: AsyncIterable<Uint8Array>): AsyncGenerator<string> {
  const decoder = new TextDecoder("utf-8", { fatal: true });
  let rest = "";
  for await (const chunk of stream) {
    rest += decoder.decode(chunk, { stream: true });
    let nl = rest.indexOf("\n");
    let start = 0;
    while (nl >= 0) {
      const end = rest.charCodeAt(nl - 1) === 13 ? nl - 1 : nl;
      yield rest.slice(start, end);
      start = nl + 1;
      nl = rest.indexOf("\n", start);
    }
    rest = rest.slice(start);
  }
  rest += decoder.decode();
  if (rest) yield rest;
}
