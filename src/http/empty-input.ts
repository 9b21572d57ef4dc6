import { z } from "zod";
import { parseInput } from "@/lib/validate";
import { jsonRequestBody } from "./openapi";

/** A route's query when it takes no parameters: one sent (`?foo=1`) is 400 naming it, not ignored. */
export const NoQuery = z.object({}).strict();

/** The body of a POST that takes no input (rescreen, redeliver): none, `{}` or `null`; anything else is refused, not ignored. */
const EmptyBody = z.object({}).strict();

/** The OpenAPI requestBody of a POST that takes no input. */
export const EMPTY_REQUEST_BODY = jsonRequestBody(EmptyBody.nullable().describe("No body (or one of only whitespace), {} or null"), false);

/** Refuses a body other than none, `{}` or `null` with 400 naming each field, as `what` ("Rescreen request"). */
export function refuseBodyFields(body: unknown, what: string): void {
  if (body !== undefined && body !== null) parseInput(EmptyBody, body, what);
}
