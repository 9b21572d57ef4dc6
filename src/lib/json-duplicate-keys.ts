/**
 * The first member name that one object of a JSON text repeats, or null. JSON.parse keeps the last
 * of repeated names silently, so `{"fullName": "A", "fullName": "B"}` would screen B while a gateway,
 * a log or the client's own code that reads the first sees A: for a screening that is a subject
 * nobody can point to afterwards. RFC 8259 only says names SHOULD be unique; I-JSON (RFC 7493), which
 * the API follows here, says MUST. Names are compared as JSON.parse decodes them, so "full\u004eame"
 * repeats "fullName".
 *
 * `text` must already be valid JSON (the caller parsed it): the scan skips what cannot hold a name and
 * does not validate. One pass over the text's UTF-16 units.
 */
export function firstDuplicateKey(text: string): { key: string; path: string } | null {
  // One entry per open container: the names seen so far for an object; for an array, the index of
  // the element being read. `at` is how the parent reaches this container.
  const open: Array<{ names: Set<string> | null; index: number; at: string }> = [];
  let lastName = "";
  const n = text.length;
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22 /* " */) {
      const start = i;
      let escaped = false;
      for (i++; i < n; i++) {
        const d = text.charCodeAt(i);
        if (d === 0x5c /* \ */) {
          escaped = true;
          i++;
        } else if (d === 0x22) break;
      }
      const names = open[open.length - 1]?.names;
      if (!names) continue; // at the top or in an array: a value
      let j = i + 1;
      while (j < n && isSpace(text.charCodeAt(j))) j++;
      if (text.charCodeAt(j) !== 0x3a /* : */) continue; // a value, not a name
      const name = escaped ? (JSON.parse(text.slice(start, i + 1)) as string) : text.slice(start + 1, i);
      if (names.has(name)) return { key: name, path: pathOf(open, name) };
      names.add(name);
      lastName = name;
    } else if (c === 0x2c /* , */) {
      const top = open[open.length - 1];
      if (top && top.names === null) top.index++;
    } else if (c === 0x7b /* { */ || c === 0x5b /* [ */) {
      const parent = open[open.length - 1];
      const at = parent === undefined ? "" : parent.names === null ? `[${parent.index}]` : lastName;
      open.push({ names: c === 0x7b ? new Set() : null, index: 0, at });
    } else if (c === 0x7d /* } */ || c === 0x5d /* ] */) {
      open.pop();
    }
  }
  return null;
}

function isSpace(c: number): boolean {
  return c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
}

/** Where the repeated name sits, as problem bodies name fields (issuePath): "[3].fullName", "options.x". */
function pathOf(open: ReadonlyArray<{ at: string }>, name: string): string {
  let out = "";
  for (const segment of [...open.map((o) => o.at), name]) {
    if (segment === "") continue;
    out += segment.startsWith("[") || out === "" ? segment : `.${segment}`;
  }
  return out;
}
