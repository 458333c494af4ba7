import {
  type Comment,
  type CommentPosition,
  type CommentsResponse,
  encodeCommentCursor,
  type OwnerOverlay,
  type ReactionCounts,
} from "../../contract/api.ts";
import { type ItemKind, limits, type ReactionType } from "../../contract/limits.ts";
import { type LiveComment, topicOf } from "../../contract/live-events.ts";
import type { EventBus } from "../events/bus.ts";
import { type Representation, representation } from "../lib/representation.ts";
import { type OpeningCandidates, openingOf } from "./comment-opening.ts";
import type { CommentsRepository } from "./comments-repository.ts";
import type { ReactionsRepository } from "./reactions-repository.ts";

/** A page as everyone sees it: no one's own flags. */
export type SharedPage = {
  comments: LiveComment[];
  next: string | null;
  before: string | null;
  total: number;
};

const shown = ({ mine: _, awaitingApproval: __, ...comment }: Comment): LiveComment => comment;

/** The cursor after the page's last thread, when more follow. */
const nextOf = (page: Comment[], more: boolean): string | null => {
  const last = page.filter((comment) => comment.parentId === null).at(-1);
  return more && last ? encodeCommentCursor(last) : null;
};

/**
 * The opening of `limit` threads (docs/decisions/032-long-discussions-open-at-both-ends.md),
 * `ownIds` marking the caller's own.
 */
function openingPage(
  candidates: OpeningCandidates<Comment>,
  limit: number,
  ownIds: ReadonlySet<number> = new Set(),
): CommentsResponse {
  const opening = openingOf(candidates, limit);
  const comments =
    ownIds.size === 0
      ? opening.comments
      : opening.comments.map((c) => (ownIds.has(c.id) ? { ...c, mine: true } : c));
  return { ...opening, comments, total: candidates.total };
}

/** A read's answer, serialized and encoded once, with its strong validator. */
export type CachedRead = Representation;

type Shared<T> = { value: T; anonymous: CachedRead };

/** Everyone's answer: kept, and compressed once for all who accept it. */
const sharedRead = (json: string): CachedRead => representation(json);
/** One visitor's answer (with their own flags): made for this response only. */
const ownRead = (json: string): CachedRead => representation(json, { shared: false });

/**
 * The item reads every reader makes (reaction counts, a post's comments),
 * answered from memory (docs/architecture.md, "Reads"). Each item's answer is
 * read from the database once, serialized once and kept until a live event
 * about that item arrives. Every instance hears every event (in-process on
 * SQLite, LISTEN/NOTIFY on PostgreSQL), so each one's cache follows the writes
 * of all of them; a write's own instance forgets at commit, before it answers.
 *
 * What a visitor owns (`mine`) is not shared: a visitor with a cookie costs one
 * small indexed query, a reader without one (most of them) none. Neither is
 * the signed-in owner's answer, which says so (`owner`).
 *
 * While the bus cannot hear events (PostgreSQL listener reconnecting) nothing
 * is kept and every read goes to the database.
 */
export function createReadCache({
  reactions,
  comments,
  bus,
}: {
  reactions: ReactionsRepository;
  comments: CommentsRepository;
  bus: Pick<EventBus, "subscribeAll" | "healthy">;
}) {
  const entries = new Map<string, Promise<Shared<unknown>>>();
  const keyOf = (part: "reactions" | "comments", topic: string) => `${part} ${topic}`;
  const watchers = new Set<(topic: string) => void>();

  function invalidate(topic: string) {
    entries.delete(keyOf("reactions", topic));
    entries.delete(keyOf("comments", topic));
    for (const watcher of watchers) watcher(topic);
  }
  const unsubscribe = bus.subscribeAll((event) => invalidate(event.topic));

  function shared<T>(key: string, load: () => Promise<Shared<T>>): Promise<Shared<T>> {
    if (!bus.healthy) {
      // Events may be missed until the listener is back: keep nothing.
      entries.clear();
      return load();
    }
    let entry = entries.get(key) as Promise<Shared<T>> | undefined;
    if (!entry) {
      // Concurrent readers of a cold item share one database read.
      entry = load();
      entries.set(key, entry);
      entry.catch(() => {
        if (entries.get(key) === entry) entries.delete(key);
      });
    }
    return entry;
  }

  const sharedCounts = (kind: ItemKind, itemId: string) =>
    shared<ReactionCounts>(keyOf("reactions", topicOf(kind, itemId)), async () => {
      const { counts } = await reactions.get({ kind, itemId, visitorId: null });
      return { value: counts, anonymous: sharedRead(JSON.stringify({ counts, mine: [] })) };
    });

  /**
   * What a post's discussion opens with, as everyone sees it: enough for an
   * opening of any size, and how many comments it has; the opening at the
   * default size is serialized once (docs/decisions/032-long-discussions-open-at-both-ends.md).
   */
  const sharedComments = (postId: string) =>
    shared<OpeningCandidates<Comment>>(keyOf("comments", topicOf("science", postId)), async () => {
      const candidates = await comments.openingCandidates(postId, null, limits.commentsPageMax);
      const page = openingPage(candidates, limits.commentsPageDefault);
      return { value: candidates, anonymous: sharedRead(JSON.stringify(page)) };
    });

  return {
    /** The counts everyone sees, for pages rendered on the server. */
    counts: async (kind: ItemKind, itemId: string) => (await sharedCounts(kind, itemId)).value,

    /** A post's discussion as it opens for everyone, for pages rendered on the server. */
    async commentPage(postId: string): Promise<SharedPage> {
      const page = openingPage((await sharedComments(postId)).value, limits.commentsPageDefault);
      return { ...page, comments: page.comments.map(shown) };
    },

    /**
     * The threads between two places as everyone sees them, read from the
     * database, for pages rendered on the server.
     */
    async commentPageBetween(
      postId: string,
      between: { after?: CommentPosition; before?: CommentPosition },
    ): Promise<SharedPage> {
      const [{ value }, { comments: list, more }] = await Promise.all([
        sharedComments(postId),
        comments.threadsBetween({
          postId,
          visitorId: null,
          ...between,
          limit: limits.commentsPageDefault,
        }),
      ]);
      return {
        comments: list.map(shown),
        next: nextOf(list, more),
        before: between.before ? encodeCommentCursor(between.before) : null,
        total: value.total,
      };
    },

    /** Called with the topic of every item whose answers are forgotten. */
    watch(watcher: (topic: string) => void): () => void {
      watchers.add(watcher);
      return () => watchers.delete(watcher);
    },

    /** Reaction counts of an item and the types `visitorId` holds. */
    async reactions(kind: ItemKind, itemId: string, visitorId: string | null): Promise<CachedRead> {
      const { value: counts, anonymous } = await sharedCounts(kind, itemId);
      if (!visitorId) return anonymous;
      const mine: ReactionType[] = await reactions.heldBy({ kind, itemId, visitorId });
      return mine.length === 0 ? anonymous : ownRead(JSON.stringify({ counts, mine }));
    },

    /**
     * A post's comments, with `mine` set on those `visitorId` wrote, and for
     * the signed-in owner the `owner` overlay (docs/decisions/016-owner-voice.md).
     * Comments that wait for the owner, or that the honeypot caught, are never
     * in the shared answer: only their writer's own answer holds them, in
     * their place (docs/decisions/010-moderation-and-spam.md). Without a
     * cursor: the discussion as it opens, from memory, but for a writer with
     * a held comment, whose held comments change what is latest for them and
     * whose answer is read from the database. With `after` or `before`: the
     * threads between, from the database, with the count from memory.
     */
    async comments(
      postId: string,
      visitorId: string | null,
      {
        limit,
        after,
        before,
      }: { limit: number; after?: CommentPosition; before?: CommentPosition },
      owner: OwnerOverlay | null = null,
    ): Promise<CachedRead> {
      const { value: candidates, anonymous } = await sharedComments(postId);
      const own = visitorId ? await comments.ownBy(postId, visitorId) : [];
      const held = own.filter((c) => c.status !== "published");
      const withOwner = (page: CommentsResponse) => (owner ? { ...page, owner } : page);
      if (after || before) {
        const page = await comments.threadsBetween({
          postId,
          visitorId,
          limit,
          ...(after ? { after } : {}),
          ...(before ? { before } : {}),
        });
        const json = JSON.stringify(
          withOwner({
            comments: page.comments,
            next: nextOf(page.comments, page.more),
            before: before ? encodeCommentCursor(before) : null,
            total: candidates.total + held.length,
          }),
        );
        // Not kept: the middle of a discussion is read rarely, each from its own place.
        return visitorId || owner ? ownRead(json) : sharedRead(json);
      }
      if (own.length === 0 && !owner) {
        // Everyone's opening; at another size than the default, made for this response.
        return limit === limits.commentsPageDefault
          ? anonymous
          : sharedRead(JSON.stringify(openingPage(candidates, limit)));
      }
      if (visitorId && held.length > 0) {
        const theirs = await comments.openingCandidates(postId, visitorId, limit);
        return ownRead(JSON.stringify(withOwner(openingPage(theirs, limit))));
      }
      const ownIds = new Set(own.map((c) => c.id));
      return ownRead(JSON.stringify(withOwner(openingPage(candidates, limit, ownIds))));
    },

    /** Forgets an item's answers: its transaction has committed. */
    invalidate,
    close: unsubscribe,
  };
}

export type ReadCache = ReturnType<typeof createReadCache>;
