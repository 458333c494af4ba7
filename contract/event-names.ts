/*
 * The names of the event stream's events (`GET /api/events`), in one list for
 * the server, the browser, the bench and the tests. Kept free of zod so the
 * browser can use the names without loading the schemas (live-events.ts).
 */

/** Events about an item: recorded with the write that caused them, and replayed. */
const itemEventNames = ["reaction", "comment"] as const;
export type ItemEventName = (typeof itemEventNames)[number];

/**
 * Every event a stream sends. `ready`: once per connection, after any replay;
 * from there on events are live. `resync`: the server could not replay
 * everything missed (too old or too many), so the client reads the item again.
 */
/**
 * The owner's topic: every item's comment events and the held comments only
 * the owner hears of, for the console (a signed-in owner's stream only).
 */
export const ownerCommentsTopic = "owner:comments";

export const liveEventNames = ["ready", ...itemEventNames, "resync"] as const;
export type LiveEventName = (typeof liveEventNames)[number];
