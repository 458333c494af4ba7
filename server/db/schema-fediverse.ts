import type { Generated } from "kysely";
import type { BigId, MaybeTime, Timestamp } from "./columns.ts";

/** The site on the Fediverse and the webmentions it receives and sends (docs/fediverse.md). */
export type FediverseTables = {
  /** Fedify's key-value store (server/fediverse/kv-store.ts): JSON values, some with an expiry. */
  fediverse_kv: { key: string; value: string; expires_at: MaybeTime };
  /** Fedify's message queue (server/fediverse/message-queue.ts): deliveries and inbox work. */
  fediverse_queue: {
    id: BigId;
    message: string;
    ordering_key: string | null;
    due_at: Timestamp;
    /** Taken by a worker until then; a worker that died leaves it due again. */
    taken_until: MaybeTime;
    /** The token of the take that holds it: only that worker settles it. */
    taken_by: string | null;
    /** When its handler first failed; null while it never has. */
    failed_at: MaybeTime;
    /** When it ran past a deadline, or was left as a delivery to a server that did: one worker runs such. */
    slow_at: MaybeTime;
    created_at: Timestamp;
  };
  /**
   * Queue messages given up after failing for days, for the Health screen:
   * their kind (Fedify's `outbox`, `fanout`, `inbox`, or the site's own
   * `ewe:take-back`), the site's own activity's id, why the last try failed;
   * deleted after 30 days.
   */
  fediverse_given_up: {
    id: Generated<number>;
    kind: string;
    activity: string | null;
    why: string;
    given_up_at: Timestamp;
  };
  /** The site actor's key pairs, as JWK: RSASSA-PKCS1-v1_5 for HTTP signatures, Ed25519 for proofs. */
  fediverse_keys: {
    algorithm: string;
    private_jwk: string;
    public_jwk: string;
    created_at: Timestamp;
  };
  /** Accounts on other servers that follow the site. */
  fediverse_followers: {
    actor_id: string;
    /** `@name@host` */
    handle: string;
    name: string | null;
    inbox: string;
    shared_inbox: string | null;
    follow_id: string;
    created_at: Timestamp;
  };
  /** What the owner blocked: an actor's id (a URL) or a whole server (its host name). */
  fediverse_blocks: { target: string; created_at: Timestamp };
  /** Each item as last sent to followers: a digest of what was sent; `deleted_at` once it was removed. */
  fediverse_published: {
    path: string;
    digest: string;
    published_at: Timestamp;
    updated_at: Timestamp;
    deleted_at: MaybeTime;
  };
  /** A comment that came from the Fediverse: the Note it was, and who wrote it. */
  fediverse_replies: {
    comment_id: number;
    note_id: string;
    actor_id: string;
    handle: string;
    /** The name the comment carries. */
    name: string;
    /** The Note's page on its own server. */
    url: string;
    /** The writer's picture, kept here and served from the site's origin; null when it had none or it failed. */
    avatar: string | null;
    created_at: Timestamp;
  };
  /** Likes and boosts of an item from the Fediverse, counted per item. */
  fediverse_reactions: {
    activity_id: string;
    kind: "like" | "announce";
    path: string;
    actor_id: string;
    created_at: Timestamp;
  };
  /** A webmention received: unverified until its source is read, pending until the owner approves. */
  webmentions: {
    id: Generated<number>;
    source: string;
    target: string;
    /** The item's path the target names. */
    path: string;
    status: "unverified" | "pending" | "published";
    kind: "mention" | "reply" | "like" | "repost";
    author_name: string | null;
    author_url: string | null;
    content: string | null;
    received_at: Timestamp;
    verified_at: MaybeTime;
  };
  /** Webmentions the site sent for an item's outgoing links, once each. */
  webmentions_sent: {
    path: string;
    target: string;
    /** "sent", "no endpoint" or the failure. */
    outcome: string;
    sent_at: Timestamp;
  };
};
