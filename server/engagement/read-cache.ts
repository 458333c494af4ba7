import {
  type Comment,
  type CommentPosition,
  type CommentsResponse,
  encodeCommentCursor,
  type OwnComments,
  type OwnerOverlay,
  type ReactionCounts,
} from "../../contract/api.ts";
import { type ItemKind, limits, type ReactionType } from "../../contract/limits.ts";
import { type LiveComment, topicOf } from "../../contract/live-events.ts";
import { type OpeningCandidates, openingOf } from "../comments/opening.ts";
import type { CommentsRepository } from "../comments/repository.ts";
import { type EventBus, itemOfOwnTopic, type LiveEvent } from "../events/bus.ts";
import {
  assembled,
  type Representation,
  representation,
  type Tail,
  tail,
} from "../lib/representation.ts";
import type { ReactionsRepository } from "./reactions-repository.ts";
import { createVisitorOverlays } from "./visitor-overlays.ts";

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

type Shared<T> = { value: T; anonymous: Representation };

/** Everyone's answer: kept, and compressed once for all who accept it. */
const sharedRead = (json: string): Representation => representation(json);
/** One visitor's answer (with their own flags): made for this response only. */
const ownRead = (json: string): Representation => representation(json, { shared: false });

/** What a visitor owns of a post's comments, kept (visitor-overlays.ts). */
type OwnOfComments = OwnComments & { tail: Tail | null };
/** The reaction types a visitor holds on an item, kept. */
type OwnOfReactions = { mine: ReactionType[]; tail: Tail | null };

/*
 * The shared answers end `,"mine":[]}` (reactions) and `}` (comments); a
 * visitor's answer is the shared bytes up to there, then their own.
 */
const reactionsOpenAt = (shared: Representation) => shared.body.length - "[]}".length;
const commentsOpenAt = (shared: Representation) => shared.body.length - "}".length;

/**
 * The item reads every reader makes (reaction counts, a post's comments),
 * answered from memory (docs/architecture.md, "Reads"). Each item's answer is
 * read from the database once, serialized once and kept until a live event
 * about that item arrives. Every instance hears every event (in-process on
 * SQLite, LISTEN/NOTIFY on PostgreSQL), so each one's cache follows the writes
 * of all of them; a write's own instance forgets at commit, before it answers.
 *
 * What a visitor owns is kept per visitor (visitor-overlays.ts) and follows
 * the shared bytes of their answer, which are never serialized again
 * (docs/decisions/035-returning-readers-read-the-shared-bytes.md). Neither is
 * the signed-in owner's answer, which says so (`owner`), and is made for its
 * response alone.
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
  const overlays = createVisitorOverlays();

  function invalidate(topic: string) {
    entries.delete(keyOf("reactions", topic));
    entries.delete(keyOf("comments", topic));
    overlays.changed(topic);
    for (const watcher of watchers) watcher(topic);
  }
  function apply(event: LiveEvent) {
    const ownOf = itemOfOwnTopic(event.topic);
    // What only a writer sees changed: the shared answers stay.
    if (ownOf !== null) overlays.changed(ownOf);
    else invalidate(event.topic);
  }
  // Events this instance applied as they committed: their delivery by the bus
  // (at once on SQLite, later through the journal on PostgreSQL) changes
  // nothing more, and would drop what was read since. Bounded, in case the bus
  // never delivers some of them (a listener reconnecting keeps nothing anyway).
  const appliedHere = new Set<number>();
  const unsubscribe = bus.subscribeAll((event) => {
    if (!appliedHere.delete(event.id)) apply(event);
  });

  function shared<T>(key: string, load: () => Promise<Shared<T>>): Promise<Shared<T>> {
    if (!bus.healthy) {
      // Events may be missed until the listener is back: keep nothing.
      entries.clear();
      overlays.clear();
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

  const ownReactions = (kind: ItemKind, itemId: string, visitorId: string) =>
    overlays.get(
      visitorId,
      "reactions",
      topicOf(kind, itemId),
      async (): Promise<OwnOfReactions> => {
        const mine = await reactions.heldBy({ kind, itemId, visitorId });
        return { mine, tail: mine.length === 0 ? null : tail(`${JSON.stringify(mine)}}`) };
      },
      bus.healthy,
    );

  const ownComments = (postId: string, visitorId: string) =>
    overlays.get(
      visitorId,
      "comments",
      topicOf("science", postId),
      async (): Promise<OwnOfComments> => {
        const all = await comments.ownBy(postId, visitorId);
        const own: OwnComments = {
          ids: all.filter((c) => c.status === "published").map((c) => c.id),
          held: all.filter((c) => c.status !== "published").map(({ status: _, ...c }) => c),
        };
        const owns = own.ids.length + own.held.length > 0;
        return { ...own, tail: owns ? tail(`,"own":${JSON.stringify(own)}}`) : null };
      },
      bus.healthy,
    );

  /**
   * The signed-in owner's opening, with the `owner` overlay, made for this
   * response: their own comments marked, and in their place the ones they
   * hold, if they also hold a visitor cookie.
   */
  async function ownerOpening(
    postId: string,
    visitorId: string | null,
    candidates: OpeningCandidates<Comment>,
    limit: number,
    owner: OwnerOverlay,
  ): Promise<Representation> {
    const own = visitorId ? await ownComments(postId, visitorId) : null;
    const page =
      visitorId && own && own.held.length > 0
        ? openingPage(await comments.openingCandidates(postId, visitorId, limit), limit)
        : openingPage(candidates, limit, new Set(own?.ids));
    return ownRead(JSON.stringify({ ...page, owner }));
  }

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
    async reactions(kind: ItemKind, itemId: string, visitorId: string | null) {
      const { anonymous } = await sharedCounts(kind, itemId);
      if (!visitorId) return anonymous;
      const own = await ownReactions(kind, itemId, visitorId);
      return own.tail ? assembled(anonymous, reactionsOpenAt(anonymous), own.tail) : anonymous;
    },

    /**
     * A post's comments. Without a cursor: the discussion as it opens, from
     * memory, followed for a visitor who owns some of it by their own (`own`:
     * which are theirs, and those that wait for the owner or that the
     * honeypot caught, which are never in the shared answer: only their
     * writer's own answer holds them, docs/decisions/010-moderation-and-spam.md).
     * With `after` or `before`: the threads between, from the database, with
     * `mine` set, and the count from memory. For the signed-in owner, the
     * `owner` overlay (docs/decisions/016-owner-voice.md).
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
    ): Promise<Representation> {
      const { value: candidates, anonymous } = await sharedComments(postId);
      if (after || before) {
        const own = visitorId ? await ownComments(postId, visitorId) : null;
        const page = await comments.threadsBetween({
          postId,
          visitorId,
          limit,
          ...(after ? { after } : {}),
          ...(before ? { before } : {}),
        });
        const json = JSON.stringify({
          comments: page.comments,
          next: nextOf(page.comments, page.more),
          before: before ? encodeCommentCursor(before) : null,
          total: candidates.total + (own?.held.length ?? 0),
          ...(owner ? { owner } : {}),
        } satisfies CommentsResponse);
        // Not kept: the middle of a discussion is read rarely, each from its own place.
        return visitorId || owner ? ownRead(json) : sharedRead(json);
      }
      if (owner) return ownerOpening(postId, visitorId, candidates, limit, owner);
      // Everyone's opening; at another size than the default, made for this response.
      const opening =
        limit === limits.commentsPageDefault
          ? anonymous
          : sharedRead(JSON.stringify(openingPage(candidates, limit)));
      const own = visitorId ? await ownComments(postId, visitorId) : null;
      return own?.tail ? assembled(opening, commentsOpenAt(opening), own.tail) : opening;
    },

    /**
     * The visitor wrote (a comment, an edit, a deletion, a reaction): what this
     * instance kept of theirs is forgotten before it answers. Other instances
     * forget it on the write's event.
     */
    forgetVisitor: (visitorId: string) => overlays.forget(visitorId),

    /**
     * The kept opening of a post's discussion, as everyone sees it, if any:
     * the same object for as long as it stands, a new one (or none) once a
     * change to the post replaced it.
     */
    keptOpening: (postId: string): unknown =>
      entries.get(keyOf("comments", topicOf("science", postId))),

    /**
     * What `visitorId` owns of a post's discussion as kept now, if any: the
     * same object for as long as it stands (`keptOpening`'s counterpart).
     */
    keptOwn: (postId: string, visitorId: string): unknown =>
      overlays.kept(visitorId, "comments", topicOf("science", postId)),

    /** Forgets an item's answers: something about it changed. */
    invalidate,

    /**
     * A write of this instance has committed: forgets what it changed before
     * the write is answered, once for good (the bus's delivery of the same
     * event is skipped).
     */
    committedHere(event: LiveEvent) {
      apply(event);
      appliedHere.add(event.id);
      if (appliedHere.size > 1_000) appliedHere.delete(appliedHere.values().next().value as number);
    },
    close: unsubscribe,
  };
}

export type ReadCache = ReturnType<typeof createReadCache>;
