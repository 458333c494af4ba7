import type { Db } from "../db/store.ts";
import { renderComment } from "./markdown.ts";

/**
 * Renders again from its text the HTML a restored backup keeps of each comment
 * (docs/backups.md, "Backups"): pages and reply mails show that HTML as it is,
 * and a file someone else wrote could hold anything there. The number that
 * differed from what this site renders, changed by hand or by another version.
 */
export async function renderRestoredComments(db: Db, pageSize = 500): Promise<number> {
  let changed = 0;
  for (let after = 0; ; ) {
    const rows = await db
      .selectFrom("science_comments")
      .select(["id", "content", "content_html"])
      .where("content_html", "is not", null)
      .where("id", ">", after)
      .orderBy("id")
      .limit(pageSize)
      .execute();
    const differing = rows.filter((row) => row.content_html !== renderComment(row.content));
    if (differing.length > 0) {
      await db.transaction().execute(async (trx) => {
        for (const row of differing) {
          await trx
            .updateTable("science_comments")
            .set({ content_html: renderComment(row.content) })
            .where("id", "=", row.id)
            .execute();
        }
      });
    }
    changed += differing.length;
    const last = rows.at(-1);
    if (!last || rows.length < pageSize) return changed;
    after = last.id;
  }
}
