import type { FastifyPluginAsyncZod } from "@fastify/type-provider-zod";
import { errorResponseSchema, formTokenResponseSchema } from "../../../contract/api.ts";
import { enquiryRequestSchema, enquiryResponseSchema } from "../../../contract/enquiries.ts";
import type { Enquiries, SubmitOutcome } from "../../enquiries/service.ts";
import type { Readers } from "../../readers/service.ts";
import { ApiError } from "../errors.ts";

const errors = { "4xx": errorResponseSchema, "5xx": errorResponseSchema };

function refusalError(refusal: (SubmitOutcome & { outcome: "refused" })["refusal"]): ApiError {
  return new ApiError(refusal.status, refusal.code, refusal.message, refusal.retryAfterSeconds);
}

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
  app.get(
    "/enquiries/form-token",
    {
      schema: {
        summary: "A signed time for the enquiry form, and how long after it the form may be sent",
        tags: ["enquiries"],
        response: { 200: formTokenResponseSchema },
      },
    },
    async (_request, reply) => {
      reply.header("cache-control", "no-store");
      return { formToken: enquiries.issueFormToken(), minimumMs: enquiries.minimumMs };
    },
  );

  app.post(
    "/enquiries",
    {
      schema: {
        summary: "Send an enquiry about a service; the owner is mailed it, the sender acknowledged",
        tags: ["enquiries"],
        body: enquiryRequestSchema,
        response: { 201: enquiryResponseSchema, ...errors },
      },
    },
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
