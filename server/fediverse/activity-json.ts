import { indexedBytes } from "../db/columns.ts";

/*
 * Whether a request asks for ActivityPub JSON rather than a page: such a
 * request is the Fediverse's (routes.ts), never the built pages' fast path.
 */
const activityTypes = /application\/(activity\+json|ld\+json)/;

export function wantsActivityPub(accept: string | undefined): boolean {
  return accept !== undefined && activityTypes.test(accept);
}

/**
 * Deepest nesting a JSON-LD document from elsewhere may have. Mastodon's go a
 * few levels deep; Fedify's JSON-LD processing recurses through each, and a
 * few thousand levels end in a stack overflow, retried for days in the queue.
 */
const depthMax = 32;
/**
 * Terms a document's contexts may define inline, all together: Mastodon's and
 * Misskey's define some 40. JSON-LD's processing costs more for each the more
 * there are, in one stretch of the event loop: a thousand in 35 kB, posted
 * unsigned, held the whole server 2 to 5 s before its 401.
 */
const termsMax = 100;
/**
 * Values (objects, arrays and the rest) a document may hold, all together: a
 * Mastodon account is some 60 to 100, a post with a dozen mentions about as
 * many, and a Misskey or Akkoma post about 9 more for each custom emoji it
 * lists (300 are some 2,800). Fedify reads the whole activity as JSON-LD in one
 * stretch: 10,000 values (2,500 mentions, 200 kB) cost 0.5 s of CPU, 1.1 s with
 * a Linked Data signature. A post reaches it only once its HTTP signature holds
 * (inbox-signature.ts), so this bounds what a signed post costs.
 */
const valuesMax = 5000;

/** A text's JSON, or undefined when it is none. */
export function jsonIn(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** Whether a JSON-LD document (jsonIn's) is too deep, too large or defines too many terms to be processed; false for none. */
export function tooHeavyJsonLd(document: unknown): boolean {
  let terms = 0;
  let values = 0;
  const pending: [unknown, number, boolean][] = [[document, 1, false]];
  for (let next = pending.pop(); next; next = pending.pop()) {
    const [node, depth, inContext] = next;
    values += 1;
    if (values > valuesMax) return true;
    if (node === null || typeof node !== "object") continue;
    if (depth > depthMax) return true;
    if (inContext && !Array.isArray(node)) terms += Object.keys(node).length;
    if (terms > termsMax) return true;
    for (const [key, child] of Object.entries(node)) {
      pending.push([child, depth + 1, inContext || key === "@context"]);
    }
  }
  return false;
}

/**
 * Whether a JSON-LD document (jsonIn's), or any value, holds an http(s)
 * address longer, written out (%-escaped) as the site would store it, than
 * the database's index holds (`indexedBytes.link`, an export's limit too).
 * Any of its addresses, under whatever term: its id, actor, object or writer
 * may become a follower's, a like's or a reply's key, and PostgreSQL refuses
 * an index row over 2,704 bytes (each try of the activity failing for days),
 * while SQLite would keep one its own export refuses.
 */
export function tooLongAddress(document: unknown): boolean {
  const pending: unknown[] = [document];
  while (pending.length > 0) {
    const node = pending.pop();
    if (typeof node === "string") {
      if (!/^https?:/i.test(node)) continue;
      const written = node.length > indexedBytes.link ? node : URL.parse(node)?.href;
      if (written && Buffer.byteLength(written) > indexedBytes.link) return true;
    } else if (node !== null && typeof node === "object") {
      // One by one: an array may hold more values than a call takes as arguments.
      for (const value of Object.values(node)) pending.push(value);
    }
  }
  return false;
}

/**
 * Whether a signed post's activity has an id at another server than its
 * signer's (`owner`, the key's owner or the key itself): Fedify takes an
 * activity's id once a day whoever sends it, so such a post, were it read,
 * would drop that server's own activity of that id when it came. An activity
 * without an id is not one of these.
 */
export function idElsewhere(document: unknown, owner: string): boolean {
  const activity = document as { id?: unknown; "@id"?: unknown } | null | undefined;
  const id = activity?.id ?? activity?.["@id"];
  return (
    id !== undefined &&
    (typeof id !== "string" || URL.parse(id)?.origin !== URL.parse(owner)?.origin)
  );
}

/**
 * The account a post deletes, when it is the Delete of its own actor and
 * `keyId` is that account's key (`…/users/asha#main-key`); null otherwise.
 */
export function deletedAccount(document: unknown, keyId: string): string | null {
  const idOf = (value: unknown) =>
    typeof value === "string" ? value : (value as { id?: unknown } | null)?.id;
  const activity = document as { type?: unknown; actor?: unknown; object?: unknown } | null;
  const actor = idOf(activity?.actor);
  const key = URL.parse(keyId);
  if (key) key.hash = "";
  return activity?.type === "Delete" &&
    typeof actor === "string" &&
    idOf(activity.object) === actor &&
    key?.href === actor
    ? actor
    : null;
}
