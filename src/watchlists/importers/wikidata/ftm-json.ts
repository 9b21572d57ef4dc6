import { ListParseError } from "../../errors";

/** A FollowTheMoney entity as exported line by line (every property value is a list of strings). */
export interface FtmEntity {
  id: string;
  schema: string;
  caption?: string;
  properties: Record<string, string[]>;
  last_seen?: string;
  last_change?: string;
  target?: boolean;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Property values are lists of strings; a bare string (seen in third-party exports) counts as one value. */
function stringList(value: unknown): string[] {
  if (typeof value === "string") return [value];
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === "string") : [];
}

export function parseFtmLine(line: string, file: string, lineNo: number): FtmEntity | undefined {
  const s = line.trim();
  if (!s) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(s);
  } catch (err) {
    throw new ListParseError({ file, location: `line ${lineNo}`, reason: "invalid JSON (the file may be cut short)", cause: err });
  }
  if (!isObject(value) || typeof value.id !== "string" || typeof value.schema !== "string") {
    throw new ListParseError({ file, location: `line ${lineNo}`, reason: "not a FollowTheMoney entity (needs id and schema)" });
  }
  const properties: Record<string, string[]> = {};
  if (isObject(value.properties)) {
    for (const [key, v] of Object.entries(value.properties)) properties[key] = stringList(v);
  }
  return {
    id: value.id,
    schema: value.schema,
    caption: typeof value.caption === "string" ? value.caption : undefined,
    properties,
    last_seen: typeof value.last_seen === "string" ? value.last_seen : undefined,
    last_change: typeof value.last_change === "string" ? value.last_change : undefined,
    target: value.target === true,
  };
}

export function prop(entity: FtmEntity, name: string): string[] {
  return entity.properties[name] ?? [];
}

const SCHEMA = /"schema"\s*:\s*"([A-Za-z]+)"/;

/** The schema of a raw line without parsing it, to skip lines cheaply in the first pass. */
export function schemaOfLine(line: string): string | undefined {
  return SCHEMA.exec(line)?.[1];
}
