import { Readable } from "node:stream";
import type { FastifyPluginAsyncZod } from "@fastify/type-provider-zod";
import type { FastifyError } from "fastify";
import {
  type DeleteYourDataResponse,
  deleteConfirmationValue,
  deleteYourDataRequestSchema,
  deleteYourDataResponseSchema,
  type OwnComment,
  type YourDataResponse,
  yourDataResponseSchema,
} from "../../../contract/your-data.ts";
import type { Bookings } from "../../bookings/service.ts";
import { inParts } from "../../db/owner-actor.ts";
import { acceptForms } from "../../lib/action-page.ts";
import { ApiError, apiErrorHandler, routesTagged, sendDatabaseFailurePage } from "../errors.ts";
import { createWriteLimiter, type RateLimits } from "../guards.ts";
import type { RouteDeps } from "./deps.ts";

const route = routesTagged("your data");

/** The built pages the form without JavaScript leads to (app/pages/your-data/). */
const resultPage = {
  deleted: "/your-data/deleted",
  nothing: "/your-data/nothing",
  later: "/your-data/later",
} as const;

/**
 * A visitor's own data (docs/product.md, "Your data";
 * docs/decisions/014-search-and-your-data.md): the download of every comment
 * and reaction the browser's visitor cookie made, and their deletion. The
 * cookie is the only identity: without it the answer is empty and nothing is
 * deleted, and none is ever issued here. Deletions go through the comments'
 * and reactions' own repositories, so every open page hears of them live.
 */
export const yourDataRoutes: FastifyPluginAsyncZod<
  RouteDeps & {
    rateLimits: RateLimits;
    /** The calls booked from this browser (docs/product.md, "Book a call"). */
    bookings: Pick<Bookings, "ofVisitor" | "forgetVisitor">;
  }
> = async (app, { engagement, siteUrl, rateLimits, replyMail, bookings }) => {
  // The download reads three tables: it has an allowance of its own, as large as
  // the writes' (a second's share included), so it cannot be repeated without end.
  const limitDownloads = createWriteLimiter(app, rateLimits);

  /** Kind by kind, each in its own transaction: a failure may come after some went. */
  const deleteAll = inParts(async (visitorId: string | null): Promise<DeleteYourDataResponse> => {
    if (visitorId === null)
      return { deleted: { comments: 0, reactions: 0, replyAddresses: 0, bookings: 0 } };
    // The addresses first: removing the comments would forget them uncounted.
    const replyAddresses = await replyMail.forgetVisitor(visitorId);
    const comments = await engagement.comments.eraseWriter(visitorId);
    const reactions = await engagement.reactions.removeAllBy(visitorId);
    const booked = await bookings.forgetVisitor(visitorId);
    return { deleted: { comments, reactions, replyAddresses, bookings: booked } };
  });

  app.get(
    "/your-data",
    {
      onRequest: limitDownloads,
      ...route(
        "Every comment and reaction the caller's visitor cookie made, as a JSON file to save",
        yourDataResponseSchema,
      ),
    },
    async (request, reply) => {
      const { visitorId } = request;
      const exportedAt = new Date().toISOString();
      const head = { site: siteUrl, exportedAt, visitorCookie: visitorId !== null };
      const comments = visitorId ? engagement.visitorData.commentsBy(visitorId, siteUrl) : null;
      // The first page is read before the answer starts, so a database that fails says so.
      const first = (await comments?.next())?.value ?? [];
      const rest = {
        reactions: visitorId ? await engagement.visitorData.reactionsBy(visitorId, siteUrl) : [],
        replyAddresses: visitorId ? await replyMail.ofVisitor(visitorId) : [],
        bookings: visitorId ? await bookings.ofVisitor(visitorId) : [],
      } satisfies Omit<YourDataResponse, keyof typeof head | "comments">;
      /**
       * The file as one JSON object, its comments a page at a time: a browser's
       * comments may be tens of thousands, each up to a long text, and were read
       * whole into one answer (hundreds of megabytes, seconds of a blocked server).
       */
      async function* file() {
        yield `${JSON.stringify(head).slice(0, -1)},"comments":[`;
        let page: OwnComment[] | undefined = first;
        let separator = "";
        while (page) {
          if (page.length > 0) {
            yield separator + page.map((comment) => JSON.stringify(comment)).join(",");
            separator = ",";
          }
          page = comments ? (await comments.next()).value || undefined : undefined;
        }
        yield `],${JSON.stringify(rest).slice(1)}`;
      }
      // The schema documents the file; a stream is sent as it is, not serialized.
      const stream = Readable.from(file()) as unknown as YourDataResponse;
      return reply
        .header("cache-control", "no-store")
        .header("content-type", "application/json; charset=utf-8")
        .header(
          "content-disposition",
          `attachment; filename="engage-with-engineer-your-data-${exportedAt.slice(0, 10)}.json"`,
        )
        .send(stream);
    },
  );

  app.post(
    "/your-data/delete",
    route(
      "Delete every comment and reaction the caller's visitor cookie made",
      { 200: deleteYourDataResponseSchema },
      { body: deleteYourDataRequestSchema },
    ),
    async (request) => deleteAll(request.visitorId),
  );

  // The same deletion from the page's plain form, for readers without JavaScript.
  await app.register(async (form) => {
    acceptForms(form, 1024);
    // A limit or an outage becomes a page that says so (the database's
    // failure a 503 of its own, with Retry-After); everything else, a
    // cross-site post included, stays the API's JSON answer.
    form.setErrorHandler<FastifyError>((error, request, reply) => {
      const page = sendDatabaseFailurePage(request, reply, error);
      if (page) return page;
      if (error.statusCode === 429 || error.statusCode === 503) {
        return reply.redirect(resultPage.later, 303);
      }
      return apiErrorHandler(error, request, reply);
    });

    form.post("/your-data/delete-form", { schema: { hide: true } }, async (request, reply) => {
      if (!(request.body instanceof URLSearchParams)) {
        throw new ApiError(415, "unsupported_media_type", "Send the form as a form.");
      }
      if (request.body.get("confirm") !== deleteConfirmationValue) {
        throw new ApiError(400, "validation_failed", "The deletion was not confirmed.");
      }
      const { deleted } = await deleteAll(request.visitorId);
      const any =
        deleted.comments + deleted.reactions + deleted.replyAddresses + deleted.bookings > 0;
      return reply.redirect(any ? resultPage.deleted : resultPage.nothing, 303);
    });
  });
};
