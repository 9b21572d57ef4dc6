import { Elysia, t } from "elysia";
import { z } from "zod";
import { codeFromSlug, ERROR_CATALOGUE, ServiceError } from "@/errors";
import { BODY_CORRELATION_ID, jsonResponse, LATE_NOT_ACCEPTABLE_PROBLEM, problemResponses, schemaComponent } from "../openapi";

/** The answer's shape, for the OpenAPI description (test/http/reference.test.ts checks real answers against it). */
export const ProblemTypeResponse = z
  .object({
    type: z.string().describe("This URI, as problem bodies carry it in `type`"),
    code: z.enum(Object.keys(ERROR_CATALOGUE) as [string, ...string[]]).describe("The stable machine-readable code problem bodies carry"),
    title: z.string().describe("The problem's title, as in problem bodies"),
    status: z.number().int().describe("The HTTP status problems of this type are answered with"),
    correlationId: BODY_CORRELATION_ID,
  })
  .describe("One problem type of the error catalogue.");

const PROBLEM_TYPE_SCHEMA = schemaComponent("ProblemType", ProblemTypeResponse);

/** Dereferenceable problem `type` URIs, served by the appliance itself so they work air-gapped. */
export function problemRoutes() {
  return new Elysia().get(
    "/problems/:slug",
    ({ params }) => {
      const code = codeFromSlug(params.slug);
      if (!code) throw new ServiceError("NOT_FOUND", `No problem type ${params.slug}`);
      const entry = ERROR_CATALOGUE[code];
      return { type: `/problems/${params.slug}`, code, title: entry.title, status: entry.status };
    },
    {
      params: t.Object({ slug: t.String({ description: "The problem type's slug, as in the type URI of a problem+json answer, e.g. validation-failed" }) }),
      detail: {
        summary: "Describe a problem type",
        description: "The `type` of every problem body points here. No credential. No query parameters are read.",
        tags: ["Reference"],
        responses: {
          200: jsonResponse("The problem type: its code, title and HTTP status", PROBLEM_TYPE_SCHEMA),
          ...problemResponses([404, 406], { 404: "No problem type has this slug.", 406: LATE_NOT_ACCEPTABLE_PROBLEM }),
        },
      },
    },
  );
}
