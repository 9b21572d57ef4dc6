import { unzipSync } from "fflate";
import { ListParseError } from "../../errors";

export function isZip(bytes: Uint8Array): boolean {
  return bytes[0] === 0x50 && bytes[1] === 0x4b && bytes[2] === 0x03 && bytes[3] === 0x04;
}

function unzip(file: string, bytes: Uint8Array, keep: (name: string) => boolean): Record<string, Uint8Array> {
  try {
    return unzipSync(bytes, { filter: (entry) => keep(entry.name) });
  } catch (err) {
    const reason = err instanceof Error ? err.message : String(err);
    throw new ListParseError({
      file,
      location: "zip container",
      reason: `not a readable zip archive (${reason}); the file may be cut short or corrupt`,
      cause: err,
    });
  }
}

export function listZipEntries(file: string, bytes: Uint8Array): string[] {
  const names: string[] = [];
  unzip(file, bytes, (name) => {
    names.push(name);
    return false;
  });
  return names;
}

/** Extracts the named entries; a missing one is a ListParseError. */
export function readZipEntries(file: string, bytes: Uint8Array, names: readonly string[]): Map<string, Uint8Array> {
  const wanted = new Set(names);
  const entries = unzip(file, bytes, (name) => wanted.has(name));
  const out = new Map<string, Uint8Array>();
  for (const name of names) {
    const data = entries[name];
    if (!data) throw new ListParseError({ file, location: "zip container", reason: `missing entry ${name}` });
    out.set(name, data);
  }
  return out;
}

/** Extracts the named entries that exist, silently skipping the others. */
export function readOptionalZipEntries(file: string, bytes: Uint8Array, names: readonly string[]): Map<string, Uint8Array> {
  const wanted = new Set(names);
  return new Map(Object.entries(unzip(file, bytes, (name) => wanted.has(name))));
}
