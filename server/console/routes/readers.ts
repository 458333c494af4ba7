import type { FastifyPluginAsyncZod } from "@fastify/type-provider-zod";
import {
  readerItemQuerySchema,
  readerItemSchema,
  readersQuerySchema,
  readersReportSchema,
} from "../../../contract/readers.ts";
import { type ConsoleContext, csvDownload, route, sendCsv } from "./context.ts";

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
    route(
      "Visitors and views over a period, who is reading now, top pages, sources, campaigns, countries, devices and conversions",
      readersReportSchema,
      { querystring: readersQuerySchema },
    ),
    async (request) => readers.report(request.query),
  );

  app.get(
    "/readers/item",
    route(
      "One page's, source's, campaign's, country's or device's figures, day by day",
      readerItemSchema,
      { querystring: readerItemQuerySchema },
    ),
    async (request) => {
      const { dimension, value, ...period } = request.query;
      return readers.item(period, dimension, value);
    },
  );

  app.get(
    "/readers/export",
    csvDownload("The period's figures as CSV, every row", { querystring: readersQuerySchema }),
    async (request, reply) => {
      // Named by the days it holds: last week's file is not overwritten by this week's.
      const { days, csv } = await readers.csv(request.query);
      return sendCsv(reply, `readers-${days}`, csv);
    },
  );
};
