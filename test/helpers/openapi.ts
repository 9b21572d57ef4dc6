import { expect } from "bun:test";
import { call, json } from "./api";

/** The parts of an OpenAPI operation the documentation tests read. */
type Ref = { $ref?: string };
export type Operation = {
  parameters?: Array<Ref & { name?: string; in?: string }>;
  requestBody?: { required?: boolean; content: Record<string, unknown> };
  responses?: Record<string, Ref & { content?: Record<string, { schema: Ref }>; headers?: Record<string, unknown> }>;
};
export type OpenApiPaths = Record<string, Record<string, Operation>>;

/** The served /openapi.json's paths. */
export async function servedPaths(baseUrl: string): Promise<OpenApiPaths> {
  return json<{ paths: OpenApiPaths }>(await call(baseUrl, "/openapi.json")).paths;
}

/**
 * The operation exists and answers exactly `ok` and the `problems` statuses; the problems are shared
 * responses by reference, and `ok` has one shared schema (starting `schemaPrefix`) under every JSON
 * type the server negotiates.
 */
export function expectDocumentedResponses(operation: Operation | undefined, ok: string, problems: readonly string[], schemaPrefix = "#/components/schemas/"): void {
  expect(operation).toBeDefined();
  const responses = operation?.responses ?? {};
  expect(Object.keys(responses).sort()).toEqual([ok, ...problems].sort());
  for (const status of problems) expect(responses[status]?.$ref).toStartWith("#/components/responses/");
  const content = responses[ok]?.content ?? {};
  const refs = ["application/json", "text/json", "text/plain"].map((type) => content[type]?.schema.$ref);
  expect(refs[0]).toStartWith(schemaPrefix);
  expect(new Set(refs).size).toBe(1);
}
