import { readdirSync } from "node:fs";
import path from "node:path";
import type { FastifyPluginAsyncZod } from "@fastify/type-provider-zod";
import { z } from "zod";
import {
  editionPreviewResponseSchema,
  editionSlugSchema,
  editionsResponseSchema,
  queuedResponseSchema,
  scheduledResponseSchema,
  scheduleRequestSchema,
  testSendRequestSchema,
  testSendResponseSchema,
} from "../../../contract/console.ts";
import { ApiError, FieldRefusal, notFound } from "../../api/errors.ts";
import { withoutAddresses } from "../../lib/log.ts";
import { onFirstUse } from "../../lib/on-first-use.ts";
import { editionProblems } from "../../newsletter/edition-links.ts";
import { editionMail } from "../../newsletter/messages.ts";
import { editionActions, testCopyRefused } from "../../newsletter/owner-actions.ts";
import { createEditionSchedules } from "../../newsletter/schedules.ts";
import { type ConsoleContext, noContent, route } from "./context.ts";

/**
 * Reading an edition renders its Markdown and its plain text (html-to-text
 * and the HTML parser it brings): loaded when the owner first opens the
 * editions, not at every start (docs/benchmarks.md, "Start and idle").
 */
const editions = onFirstUse(() => import("../../newsletter/editions.ts"));

/** The newsletter's editions: the folder, a preview, a test copy, sending now or later. */
export const editionRoutes: FastifyPluginAsyncZod<ConsoleContext> = async (app, context) => {
  const { config, mailer, editionStore, editionsDir, actor } = context;
  const { siteUrl } = config;
  const schedules = createEditionSchedules(context.store);
  const actions = editionActions(editionStore, schedules, siteUrl, {
    mailQueued: context.mailQueued,
  });

  /** The folder's own path is the server's business, not the page's. */
  const withoutFolder = (message: string) => message.replaceAll(`${editionsDir}${path.sep}`, "");

  /**
   * The editions folder (EDITIONS_DIR; docs/mail.md, "Newsletter editions"):
   * every Markdown file, newest name first, each with its subject or the reason
   * it cannot be sent, and what is wrong with its links and images.
   */
  async function listEditions() {
    const { EditionError, readEdition } = await editions();
    let names: string[];
    try {
      names = readdirSync(editionsDir).filter((name) => name.toLowerCase().endsWith(".md"));
    } catch {
      return [];
    }
    return names
      .sort()
      .reverse()
      .map((name) => {
        const slug = name.replace(/\.md$/i, "");
        try {
          const edition = readEdition(path.join(editionsDir, name), siteUrl);
          const warnings = editionProblems(edition, config);
          return { slug, subject: edition.subject, problem: null, warnings };
        } catch (error) {
          const problem = withoutFolder(
            error instanceof EditionError ? error.message : String(error),
          );
          return { slug, subject: null, problem, warnings: [] };
        }
      });
  }

  /** The edition named `slug` in the folder; the slug is checked, so no other file is reached. */
  async function editionOf(slug: string) {
    if (!editionSlugSchema.safeParse(slug).success) throw notFound("No such edition.");
    const { EditionError, readEdition } = await editions();
    try {
      const edition = readEdition(path.join(editionsDir, `${slug}.md`), siteUrl);
      return { ...edition, warnings: editionProblems(edition, config) };
    } catch (error) {
      if (!(error instanceof EditionError)) throw error;
      if (error.missing) throw notFound(`There is no edition "${slug}".`);
      throw new ApiError(422, "validation_failed", withoutFolder(error.message));
    }
  }

  app.get(
    "/editions",
    route(
      "The editions folder, each file with its progress when it was sent",
      editionsResponseSchema,
    ),
    async () => {
      const progress = await editionStore.progress();
      const pending = await schedules.pending();
      const scheduled = (slug: string) => {
        const found = pending.find((p) => p.slug === slug);
        return found ? { sendAt: found.sendAt, started: found.started } : null;
      };
      const listed = (await listEditions()).map((edition) => ({
        ...edition,
        progress: progress.find((p) => p.slug === edition.slug) ?? null,
        scheduled: scheduled(edition.slug),
      }));
      // Editions sent from files since removed still show their progress.
      const gone = progress
        .filter((p) => !listed.some((e) => e.slug === p.slug))
        .map((p) => ({
          slug: p.slug,
          subject: p.subject,
          problem: "The file is gone.",
          warnings: [],
          progress: p,
          scheduled: scheduled(p.slug),
        }));
      const { confirmed, suppressed } = await editionStore.reach();
      return {
        editions: [...listed, ...gone],
        confirmedSubscribers: confirmed,
        suppressedSubscribers: suppressed,
      };
    },
  );

  const slugParams = z.object({ slug: editionSlugSchema });

  app.get(
    "/editions/:slug",
    route(
      "An edition rendered in the mail template, as subscribers will see it",
      editionPreviewResponseSchema,
      { params: slugParams },
    ),
    async (request) => {
      const edition = await editionOf(request.params.slug);
      const mail = editionMail(edition, { to: "preview@example.com", token: "preview" }, siteUrl);
      return { subject: mail.subject, html: mail.html, warnings: edition.warnings };
    },
  );

  app.post(
    "/editions/:slug/test",
    route(
      "Send one test copy of an edition to an address (nothing is recorded)",
      { 202: testSendResponseSchema },
      { params: slugParams, body: testSendRequestSchema },
    ),
    async (request, reply) => {
      const edition = await editionOf(request.params.slug);
      const sent = await actions.test(actor(request), edition, request.body.to, mailer);
      if (sent !== "sent") {
        // The mail server's words, without the address it may quote (logs hold none).
        const { notSent } = sent;
        const reason = withoutAddresses(
          notSent instanceof Error ? notSent.message : String(notSent),
        );
        request.log.warn({ reason }, "test copy could not be sent");
        throw new ApiError(503, "service_unavailable", testCopyRefused(reason));
      }
      const sentBy = config.SMTP_URL ? ("mail" as const) : ("file" as const);
      return reply.code(202).send({ sent: sentBy, warnings: edition.warnings });
    },
  );

  app.post(
    "/editions/:slug/send",
    route(
      "Queue an edition for every confirmed subscriber who has not had it",
      { 202: queuedResponseSchema },
      { params: slugParams },
    ),
    async (request, reply) => {
      const edition = await editionOf(request.params.slug);
      const sent = await actions.send(actor(request), edition);
      if ("conflict" in sent) throw new ApiError(409, "conflict", sent.conflict);
      const { queued, before } = sent;
      return reply.code(202).send({ queued, before, warnings: edition.warnings });
    },
  );

  app.post(
    "/editions/:slug/schedule",
    route(
      "Send an edition later, to every confirmed subscriber at that time",
      { 202: scheduledResponseSchema },
      {
        description:
          "A new time replaces the old until the edition starts going out. The edition is stored as it is now.",
        params: slugParams,
        body: scheduleRequestSchema,
      },
    ),
    async (request, reply) => {
      const edition = await editionOf(request.params.slug);
      const done = await actions.schedule(actor(request), edition, new Date(request.body.at));
      if ("invalid" in done) throw new FieldRefusal("body.at", done.invalid, 422);
      if ("conflict" in done) throw new ApiError(409, "conflict", done.conflict);
      return reply.code(202).send({ sendAt: done.sendAt, warnings: edition.warnings });
    },
  );

  app.delete(
    "/editions/:slug/schedule",
    route("Cancel a scheduled edition that has not started going out", noContent, {
      params: slugParams,
    }),
    async (request) => {
      const done = await actions.cancel(actor(request), request.params.slug);
      if (done === "not_found") throw notFound("This edition is not scheduled.");
      if (done === "started") {
        throw new ApiError(
          409,
          "conflict",
          "It has started going out: it can no longer be cancelled.",
        );
      }
    },
  );
};
