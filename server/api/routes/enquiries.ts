import type { FastifyPluginAsyncZod } from "@fastify/type-provider-zod";
import { enquiryRequestSchema, enquiryResponseSchema } from "../../../contract/enquiries.ts";
import type { Enquiries } from "../../enquiries/service.ts";
import type { Readers } from "../../readers/service.ts";
import { routesTagged } from "../errors.ts";
import { formTokenRoute, refusalError } from "./deps.ts";

const route = routesTagged("enquiries");

/**
 * The enquiry form's API (docs/product.md, "Enquiries"): its signed time, and
 * the enquiry as JSON from the island; the ordinary form post without
 * JavaScript (server/enquiries/pages.ts). The answer never carries the
 * enquiry back.
 */
export const enquiryRoutes: FastifyPluginAsyncZod<{
  enquiries: Enquiries;
  attribute: Readers["attribute"];
}> = async (app, { enquiries, attribute }) => {
  formTokenRoute(
    app,
    "enquiries",
    "A signed time for the enquiry form, and how long after it the form may be sent",
    enquiries.formTokens,
  );

  app.post(
    "/enquiries",
    route(
      "Send an enquiry about a service; the owner is mailed it, the sender acknowledged",
      { 201: enquiryResponseSchema },
      { body: enquiryRequestSchema },
    ),
    async (request, reply) => {
      const outcome = await enquiries.submit(request.body, {
        ip: request.ip,
        visitorId: request.visitorId,
      });
      if (outcome.outcome === "refused") throw refusalError(outcome.refusal);
      if (outcome.id !== null) await attribute(request, "enquiry");
      return reply.code(201).send({ received: true });
    },
  );
};
