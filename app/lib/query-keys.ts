import type { ItemKind } from "../../contract/limits.ts";

/**
 * The keys of an item's cached reads, shared by the features that read them
 * (reactions, comments) and by the live updates that change them in place.
 */
export const itemKeys = {
  reactions: (kind: ItemKind, id: string) => ["reactions", kind, id] as const,
  comments: (id: string) => ["comments", id] as const,
};
