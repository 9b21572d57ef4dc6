import { z } from "zod";

/** skip/take as the spec defines them (defaults 0 and 50); take is capped at 500 to bound a page's cost. */
export const MAX_TAKE = 500;
export const Paging = z.object({
  skip: z.coerce.number().int().min(0).max(2_147_483_647).default(0).describe("Entries to skip (default 0)"),
  take: z.coerce.number().int().min(1).max(MAX_TAKE).default(50).describe(`Page size (default 50, at most ${MAX_TAKE})`),
});
