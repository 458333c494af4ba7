import type { FastifyPluginAsyncZod } from "@fastify/type-provider-zod";
import {
  readerItemQuerySchema,
  readerItemSchema,
  readersQuerySchema,
  readersReportSchema,
} from "../../../contract/readers.ts";
import { type ConsoleContext, consoleTag, csvDownload, errors, sendCsv } from "./context.ts";

/**
 * Readers (docs/product.md, "Readers"): the period's figures, one row's own
 * figures day by day, and the CSV of the period. Reading them changes
 * nothing, so nothing is audited.
 */
export const readerConsoleRoutes: FastifyPluginAsyncZod<ConsoleContext> = async (
  app,
  { readers },
) => {
  app.get(
    "/readers",
    {
      schema: {
        ...consoleTag,
        summary:
          "Visitors and views over a period, who is reading now, top pages, sources, campaigns, countries, devices and conversions",
        querystring: readersQuerySchema,
        response: { 200: readersReportSchema, ...errors },
      },
    },
    async (request) => readers.report(request.query),
  );

  app.get(
    "/readers/item",
    {
      schema: {
        ...consoleTag,
        summary: "One page's, source's, campaign's, country's or device's figures, day by day",
        querystring: readerItemQuerySchema,
        response: { 200: readerItemSchema, ...errors },
      },
    },
    async (request) => {
      const { dimension, value, ...period } = request.query;
      return readers.item(period, dimension, value);
    },
  );

  app.get(
    "/readers/export",
    {
      schema: {
        ...csvDownload,
        summary: "The period's figures as CSV, every row",
        querystring: readersQuerySchema,
      },
    },
    async (request, reply) =>
      sendCsv(reply, `readers-${request.query.period}`, await readers.csv(request.query)),
  );
};
