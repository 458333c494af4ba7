import type { FastifyPluginAsync, FastifyRequest } from "fastify";
import { escapeHtml } from "../../contract/html.ts";
import type { NotifiedComment } from "../comments/notifier.ts";
import { storeFailureOf } from "../db/errors.ts";
import type { OwnerActor } from "../db/owner-actor.ts";
import type { CommentAction } from "../db/schema.ts";
import type { Store } from "../db/store.ts";
import {
  type ActionPage,
  acceptForms,
  formFields,
  fromElsewhere,
  fromSite,
  hidden,
  linkPages,
  paragraph,
  queryToken,
} from "../lib/action-page.ts";
import type { ActionTokens, TokenState } from "./action-tokens.ts";
import { type CommentActions, commentsById } from "./compose.ts";
import { postUrl } from "./notifier.ts";

export type ActionRouteDeps = {
  store: Store;
  tokens: ActionTokens;
  titles: ReadonlyMap<string, string>;
  siteUrl: string;
  /** The actor of actions with no console session, whose line a link's action writes. */
  unsigned: OwnerActor;
  act: CommentActions;
  /** When a comment was written, in the owner's zone. */
  written: (comment: NotifiedComment) => Promise<string>;
};

const actions: Record<
  CommentAction,
  { question: string; button: string; done: string; nothing: string }
> = {
  approve: {
    question: "Approve this comment?",
    button: "Approve the comment",
    done: "The comment is approved: every reader sees it now.",
    nothing:
      "There is no comment awaiting approval under this number any more: it was approved or deleted already.",
  },
  delete: {
    question: "Delete this comment?",
    button: "Delete the comment",
    done: "The comment is deleted: readers who have the post open see it disappear.",
    nothing: "The comment had already been deleted.",
  },
};

const refusals: Record<Exclude<TokenState, "valid">, { status: number; page: ActionPage }> = {
  unknown: {
    status: 404,
    page: {
      title: "This link is not known",
      body: paragraph(
        "It may have been copied incompletely. Use the link exactly as it is in the mail, or run npm run admin -- comments list on the server.",
      ),
    },
  },
  used: {
    status: 410,
    page: {
      title: "This link has already been used",
      body: paragraph("Each link in a notification mail works once; nothing was changed now."),
    },
  },
  expired: {
    status: 410,
    page: {
      title: "This link has expired",
      body: paragraph(
        "The links in notification mails work for 7 days; nothing was changed. The owner's command line still acts on the comment: npm run admin -- comments --help.",
      ),
    },
  },
};

/** The comment's text, escaped, and where it was written. */
function commentHtml(
  comment: NotifiedComment,
  title: string,
  siteUrl: string,
  written: string,
): string {
  return `<p class="meta"><strong>${escapeHtml(comment.userName)}</strong> on <a href="${escapeHtml(postUrl(siteUrl, comment.postId))}">${escapeHtml(title)}</a>, ${escapeHtml(written)}</p>
<blockquote>${escapeHtml(comment.content)}</blockquote>`;
}

const idPattern = /^[1-9]\d{0,9}$/;

/** A link taken by another press of it in the meantime, or expired since it was looked at. */
class Refused extends Error {
  readonly state: Exclude<TokenState, "valid">;
  constructor(state: Exclude<TokenState, "valid">) {
    super(`The link is ${state}.`);
    this.state = state;
  }
}

/**
 * The owner's action links (docs/decisions/011-owner-notifications.md):
 * `GET /owner/comments/:id/:action?token=…` shows the comment and a button
 * and changes nothing (mail scanners open links); only the button's POST
 * acts, once, from this site's own page.
 */
export const commentActionRoutes: FastifyPluginAsync<ActionRouteDeps> = async (
  app,
  { store, tokens, titles, siteUrl, unsigned, act, written },
) => {
  const siteOrigin = new URL(siteUrl).origin;

  acceptForms(app, 1024);

  /** The comment and action the address names, or null when it names none. */
  function target(request: FastifyRequest): { id: number; action: CommentAction } | null {
    const { id, action } = request.params as { id: string; action: string };
    if (!idPattern.test(id) || Number(id) > 2_147_483_647) return null;
    return action === "delete" || action === "approve" ? { id: Number(id), action } : null;
  }

  const send = linkPages(app, {
    mail: "the notification mail",
    failure: "owner action failed",
    failureOf: storeFailureOf,
  });

  app.get("/owner/comments/:id/:action", async (request, reply) => {
    const named = target(request);
    if (!named) return send(reply, refusals.unknown.status, refusals.unknown.page);
    const token = queryToken(request);
    const state = await tokens.inspect(token, named.id, named.action);
    if (state !== "valid") return send(reply, refusals[state].status, refusals[state].page);
    const words = actions[named.action];
    const comment = (await commentsById(store.db, [named.id])).get(named.id);
    // Deleted, or approved meanwhile (in the console, say): its button would do nothing.
    if (!comment || (named.action === "approve" && comment.status === "published"))
      return send(reply, 410, { title: "Nothing to do", body: paragraph(words.nothing) });
    const title = titles.get(comment.postId) ?? comment.postId;
    return send(reply, 200, {
      title: words.question,
      body: `${commentHtml(comment, title, siteUrl, await written(comment))}
<form method="post" action="/owner/comments/${named.id}/${named.action}">
${hidden("token", token)}
<button type="submit"${named.action === "delete" ? ' class="danger"' : ""}>${words.button}</button>
</form>
${paragraph("Nothing happens until you press the button. The link then stops working.", "note")}`,
    });
  });

  app.post("/owner/comments/:id/:action", async (request, reply) => {
    const named = target(request);
    if (!named) return send(reply, refusals.unknown.status, refusals.unknown.page);
    if (!fromSite(request, siteOrigin)) {
      return send(reply, 403, { title: "Nothing was changed", body: fromElsewhere(siteOrigin) });
    }
    const token = formFields(request).get("token") ?? "";
    const state = await tokens.inspect(token, named.id, named.action);
    if (state !== "valid") return send(reply, refusals[state].status, refusals[state].page);
    const words = actions[named.action];
    // The link is taken in the action's transaction: an action that failed leaves it working.
    let done: boolean;
    try {
      // Its line, written in the action's transaction, follows the link's claim.
      const claiming: OwnerActor = {
        ...unsigned,
        async audit(action, object, within) {
          if (!within)
            throw new Error("A mailed link's line is written in its action's transaction.");
          const taken = await tokens.claim(token, named.id, named.action, within);
          if (taken !== "valid") throw new Refused(taken);
          await unsigned.audit(action, object, within);
        },
      };
      done = await act[named.action](claiming, named.id);
    } catch (error) {
      if (!(error instanceof Refused)) throw error;
      return send(reply, refusals[error.state].status, refusals[error.state].page);
    }
    request.log.info({ comment: named.id, action: named.action, done }, "owner action link used");
    return done
      ? send(reply, 200, { title: "Done", body: paragraph(words.done) })
      : send(reply, 410, { title: "Nothing to do", body: paragraph(words.nothing) });
  });
};
