import type { ItemKind, ReactionType } from "../../contract/limits.ts";
import type { OwnComment, OwnReaction } from "../../contract/your-data.ts";
import type { Store } from "../db/store.ts";
import { toIso } from "../lib/time.ts";

/** Where an item is read: its card on the list page (the anchor opens it). */
function itemUrl(siteUrl: string, kind: ItemKind, itemId: string): string {
  return `${siteUrl}/${kind}#${encodeURIComponent(itemId)}`;
}

/** What the download holds of each comment (one line: the console's list names them too). */
const commentColumns = [
  ...["id", "post_id", "content", "user_name", "created_at", "updated_at", "parent_id"],
] as const;

/**
 * Everything one visitor cookie made, for the "Your data" download
 * (docs/decisions/014-search-and-your-data.md). Deleting it goes through the
 * comments' and reactions' own repositories, which publish the live events.
 */
export function createVisitorDataRepository(store: Store) {
  const { db } = store;
  return {
    /**
     * Every comment one visitor wrote, oldest first, `pageSize` at a time: a
     * browser that wrote for years is never held in memory whole, only the ids.
     */
    async *commentsBy(
      visitorId: string,
      siteUrl: string,
      pageSize = 500,
    ): AsyncGenerator<OwnComment[]> {
      const ids = (
        await db
          .selectFrom("science_comments")
          .select("id")
          .where("visitor_id", "=", visitorId)
          .orderBy("created_at")
          .orderBy("id")
          .execute()
      ).map((row) => row.id);
      for (let at = 0; at < ids.length; at += pageSize) {
        const page = ids.slice(at, at + pageSize);
        const rows = await db
          .selectFrom("science_comments")
          .select(commentColumns)
          .where("id", "in", page)
          .where("visitor_id", "=", visitorId)
          .execute();
        const byId = new Map(rows.map((row) => [row.id, row]));
        // In the order read first; one deleted meanwhile is left out.
        yield page
          .flatMap((id) => byId.get(id) ?? [])
          .map((row) => ({
            id: row.id,
            postId: row.post_id,
            url: itemUrl(siteUrl, "science", row.post_id),
            content: row.content,
            userName: row.user_name,
            createdAt: toIso(row.created_at),
            updatedAt: toIso(row.updated_at),
            parentId: row.parent_id,
          }));
      }
    },

    async reactionsBy(visitorId: string, siteUrl: string): Promise<OwnReaction[]> {
      const [stories, posts] = await Promise.all([
        db
          .selectFrom("mythology_reactions")
          .select(["story_id as item_id", "type", "user_name", "created_at", "id"])
          .where("visitor_id", "=", visitorId)
          .execute(),
        db
          .selectFrom("science_reactions")
          .select(["post_id as item_id", "type", "user_name", "created_at", "id"])
          .where("visitor_id", "=", visitorId)
          .execute(),
      ]);
      const tagged = [
        ...stories.map((row) => ({ kind: "mythology" as const, row })),
        ...posts.map((row) => ({ kind: "science" as const, row })),
      ];
      return tagged
        .map(({ kind, row }) => ({
          kind,
          itemId: row.item_id,
          url: itemUrl(siteUrl, kind, row.item_id),
          type: row.type as ReactionType,
          userName: row.user_name,
          createdAt: toIso(row.created_at),
        }))
        .sort((a, b) => a.createdAt.localeCompare(b.createdAt));
    },
  };
}
