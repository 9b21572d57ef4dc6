import { z } from "zod";
import { parseInput } from "@/lib/validate";

/** A route's query when it takes no parameters: one sent (`?foo=1`) is 400 naming it, not ignored. */
export const NoQuery = z.object({}).strict();

/** The body of a POST that takes no input (rescreen, redeliver): none, `{}` or `null`; anything else is refused, not ignored. */
export const EmptyBody = z.object({}).strict();

/** Refuses a body other than none, `{}` or `null` with 400 naming each field, as `what` ("Rescreen request"). */
export function refuseBodyFields(body: unknown, what: string): void {
  if (body !== undefined && body !== null) parseInput(EmptyBody, body, what);
}
