import { Elysia, t } from "elysia";
import { codeFromSlug, ERROR_CATALOGUE, ServiceError } from "@/errors";

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
      params: t.Object({ slug: t.String() }),
      detail: { summary: "Describe a problem type", tags: ["Reference"] },
    },
  );
}
