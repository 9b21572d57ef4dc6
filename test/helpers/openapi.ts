import { expect } from "bun:test";
import { z } from "zod";
import { call, type Exchange, json } from "./api";

/** The parts of an OpenAPI operation the documentation tests read. */
type Ref = { $ref?: string };
export type Operation = {
  description?: string;
  parameters?: Array<Ref & { name?: string; in?: string }>;
  requestBody?: { required?: boolean; content: Record<string, unknown> };
  responses?: Record<string, Ref & { content?: Record<string, { schema: Ref }>; headers?: Record<string, unknown> }>;
};
export type OpenApiPaths = Record<string, Record<string, Operation>>;

/** The served /openapi.json's paths. */
export async function servedPaths(baseUrl: string): Promise<OpenApiPaths> {
  return json<{ paths: OpenApiPaths }>(await call(baseUrl, "/openapi.json")).paths;
}

/** The problems every operation declares (finishDocument, src/http/openapi.ts): 413, 415 and 500. */
export const EVERY_OPERATION_PROBLEMS = ["413", "415", "500"] as const;

/**
 * The operation exists and answers exactly `ok`, the `problems` statuses and EVERY_OPERATION_PROBLEMS;
 * the problems are shared responses by reference, and `ok` has one shared schema (starting
 * `schemaPrefix`) under every JSON type the server negotiates.
 */
export function expectDocumentedResponses(operation: Operation | undefined, ok: string, problems: readonly string[], schemaPrefix = "#/components/schemas/"): void {
  expect(operation).toBeDefined();
  const responses = operation?.responses ?? {};
  const all = [...new Set([...problems, ...EVERY_OPERATION_PROBLEMS])];
  expect(Object.keys(responses).sort()).toEqual([ok, ...all].sort());
  for (const status of all) expect(responses[status]?.$ref).toStartWith("#/components/responses/");
  const content = responses[ok]?.content ?? {};
  const refs = ["application/json", "text/json", "text/plain"].map((type) => content[type]?.schema.$ref);
  expect(refs[0]).toStartWith(schemaPrefix);
  expect(new Set(refs).size).toBe(1);
}

/**
 * `schema` with every object in it strict, however deep: a member the published schema does not name
 * (a leaked secret, an undocumented field) fails the parse instead of being stripped. A default is
 * unwrapped too: an answer carries every member, so none may be filled in by the parse. Throws for a
 * schema it cannot rebuild rather than passing it through loose.
 */
export function strictDeep(schema: z.ZodType): z.ZodType {
  const def = schema._zod.def as z.core.$ZodTypeDef & Record<string, unknown>;
  switch (def.type) {
    case "object": {
      const object = schema as z.ZodObject;
      if ((def.checks ?? []).length > 0) throw new Error("strictDeep: an object with refinements would lose them");
      const shape = Object.fromEntries(Object.entries(object.shape).map(([key, member]) => [key, strictDeep(member as z.ZodType)]));
      return z.strictObject(shape);
    }
    case "array":
      return z.array(strictDeep((schema as z.ZodArray<z.ZodType>).element));
    case "nullable":
      return strictDeep((schema as z.ZodNullable<z.ZodType>).unwrap()).nullable();
    case "optional":
      return strictDeep((schema as z.ZodOptional<z.ZodType>).unwrap()).optional();
    case "default":
      return strictDeep((schema as z.ZodDefault<z.ZodType>).unwrap());
    case "union":
      return z.union((schema as z.ZodUnion<z.ZodType[]>).options.map(strictDeep) as [z.ZodType, z.ZodType, ...z.ZodType[]]);
    case "record": {
      const value = def.valueType as z.ZodType;
      if (strictDeep(value) !== value) throw new Error("strictDeep: a record of objects is not supported");
      return schema;
    }
    case "string":
    case "number":
    case "boolean":
    case "enum":
    case "literal":
    case "null":
    case "unknown":
      return schema;
    default:
      throw new Error(`strictDeep: no rule for a ${def.type} schema`);
  }
}

/**
 * The answer has `status` and parses with `schema` made strict throughout (strictDeep), which must
 * accept it: every issue is shown when it does not, an unpublished member included. Returns the parse.
 */
export async function conforms<S extends z.ZodType>(schema: S, res: Exchange | Promise<Exchange>, status = 200): Promise<z.output<S>> {
  const exchange = await res;
  expect(exchange.status).toBe(status);
  const parsed = strictDeep(schema).safeParse(json(exchange));
  expect(parsed.success ? [] : parsed.error.issues).toEqual([]);
  return parsed.data as z.output<S>;
}
