import type { Comment, ReactionCounts } from "../../contract/api.ts";
import type { ItemKind, ReactionType } from "../../contract/limits.ts";
import { type LiveComment, topicOf } from "../../contract/live-events.ts";
import type { EventBus } from "../events/bus.ts";
import { type Representation, representation } from "../web/etag.ts";
import type { CommentsRepository } from "./comments-repository.ts";
import type { ReactionsRepository } from "./reactions-repository.ts";

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
 * small indexed query, a reader without one (most of them) none.
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

  const sharedComments = (postId: string) =>
    shared<LiveComment[]>(keyOf("comments", topicOf("science", postId)), async () => {
      const rows: Comment[] = await comments.list(postId, null);
      const body = JSON.stringify({ comments: rows });
      return {
        value: rows.map(({ mine: _, awaitingApproval: __, ...c }) => c),
        anonymous: sharedRead(body),
      };
    });

  return {
    /** The counts everyone sees, for pages rendered on the server. */
    counts: async (kind: ItemKind, itemId: string) => (await sharedCounts(kind, itemId)).value,

    /** A post's comments as everyone sees them, for pages rendered on the server. */
    commentList: async (postId: string) => (await sharedComments(postId)).value,

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
     * A post's comments, oldest first, with `mine` set on those `visitorId`
     * wrote. Comments that wait for the owner, or that the honeypot caught,
     * are never in the shared answer: only their writer's own answer holds
     * them (docs/decisions/010-moderation-and-spam.md).
     */
    async comments(postId: string, visitorId: string | null): Promise<CachedRead> {
      const { value: list, anonymous } = await sharedComments(postId);
      if (!visitorId) return anonymous;
      const own = await comments.ownBy(postId, visitorId);
      if (own.length === 0) return anonymous;
      const ownIds = new Set(own.map((c) => c.id));
      const listed = new Set(list.map((c) => c.id));
      const held: Comment[] = own
        .filter((c) => c.status !== "published" && !listed.has(c.id))
        .map(({ status: _, ...c }) => c);
      const merged: Comment[] = [
        ...list.map((c) => ({ ...c, mine: ownIds.has(c.id), awaitingApproval: false })),
        ...held,
      ].sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.id - b.id);
      return ownRead(JSON.stringify({ comments: merged }));
    },

    /** Forgets an item's answers: its transaction has committed. */
    invalidate,
    close: unsubscribe,
  };
}

export type ReadCache = ReturnType<typeof createReadCache>;
