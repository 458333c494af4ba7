import type { FastifyPluginAsyncZod } from "@fastify/type-provider-zod";
import { rowIdParamsSchema } from "../../../contract/api.ts";
import {
  answerEnquiryRequestSchema,
  enquiriesQuerySchema,
  enquiriesResponseSchema,
  enquiryResponseOwnerSchema,
  enquiryWeeksResponseSchema,
  otherService,
  otherServiceLabel,
  updateEnquiryRequestSchema,
} from "../../../contract/enquiries.ts";
import { notFound } from "../../api/errors.ts";
import { enquiryActions } from "../../enquiries/owner-actions.ts";
import { type ConsoleContext, csvDownload, noContent, route, sendCsv } from "./context.ts";

/**
 * Enquiries (docs/product.md, "Enquiries"): the list with its search and
 * filters, the answer by mail, the status, keeping one past the retention
 * period, deletion, the CSV export and the weekly counts of the Overview.
 * The audit trail names an enquiry by its number, never by what it holds.
 */
export const enquiryConsoleRoutes: FastifyPluginAsyncZod<ConsoleContext> = async (app, context) => {
  const { enquiries, actor, mailQueued } = context;
  const { repository, toEnquiry } = enquiries;
  const actions = enquiryActions({ repository, toEnquiry, mailQueued });
  const services = [...enquiries.services, { id: otherService, title: otherServiceLabel }];
  const missing = () => notFound("There is no such enquiry; it may have been deleted.");

  async function current(id: number) {
    const stored = await repository.get(id);
    if (!stored) throw missing();
    return { enquiry: enquiries.toEnquiry(stored) };
  }

  app.get(
    "/enquiries",
    route("Enquiries, newest first, by search, status and service", enquiriesResponseSchema, {
      querystring: enquiriesQuerySchema,
    }),
    async (request) => ({
      enquiries: (await repository.list(request.query)).map(enquiries.toEnquiry),
      services,
      retentionDays: enquiries.retentionDays,
    }),
  );

  app.get(
    "/enquiries/weeks",
    route(
      "Enquiries per week (from Monday, in the owner's zone) by service, the last 12 weeks",
      enquiryWeeksResponseSchema,
    ),
    async () => ({
      weeks: await repository.perWeek(12, await context.bookings.ownerZone()),
      services,
    }),
  );

  app.get(
    "/enquiries/export",
    csvDownload("Every enquiry as CSV, newest first"),
    async (request, reply) => {
      const { csv } = await actions.exportCsv(actor(request));
      return sendCsv(reply, `enquiries-${new Date().toISOString().slice(0, 10)}`, csv);
    },
  );

  app.patch(
    "/enquiries/:id",
    route(
      "Mark an enquiry new, answered or closed, or keep it past the retention period",
      enquiryResponseOwnerSchema,
      { params: rowIdParamsSchema, body: updateEnquiryRequestSchema },
    ),
    async (request) => {
      const { id } = request.params;
      if (!(await actions.update(actor(request), id, request.body))) throw missing();
      return current(id);
    },
  );

  app.post(
    "/enquiries/:id/answers",
    route(
      "Answer an enquiry by mail, threaded under its acknowledgement",
      { 201: enquiryResponseOwnerSchema },
      { params: rowIdParamsSchema, body: answerEnquiryRequestSchema },
    ),
    async (request, reply) => {
      const { id } = request.params;
      if (!(await actions.answer(actor(request), id, request.body.body))) throw missing();
      return reply.code(201).send(await current(id));
    },
  );

  app.delete(
    "/enquiries/:id",
    route("Delete an enquiry with its answers and its mails", noContent, {
      params: rowIdParamsSchema,
    }),
    async (request) => {
      if (!(await actions.remove(actor(request), request.params.id))) throw missing();
    },
  );
};
