import type { Db } from "../db/store.ts";
import { renderComment } from "./markdown.ts";
import { misplacedReply } from "./threads.ts";

/**
 * Throws, naming the first, unless every reply a restored backup holds answers a comment
 * it holds that starts a thread on the same post (threads.ts), as the site writes them: no
 * key keeps that, and a reply elsewhere would show under another post, one to a missing or
 * replying comment nowhere, and the site's export would hold what its import refuses.
 */
async function assertRepliesPlaced(db: Db): Promise<void> {
  const found = await db
    .selectFrom("science_comments as reply")
    .leftJoin("science_comments as parent", "parent.id", "reply.parent_id")
    .select([
      "reply.id",
      "reply.post_id",
      "reply.parent_id",
      "parent.id as parentId",
      "parent.post_id as parentPost",
      "parent.parent_id as parentParent",
    ])
    .where("reply.parent_id", "is not", null)
    .where((eb) =>
      eb.or([
        eb("parent.id", "is", null),
        eb("parent.post_id", "!=", eb.ref("reply.post_id")),
        eb("parent.parent_id", "is not", null),
      ]),
    )
    .orderBy("reply.id")
    .limit(1)
    .executeTakeFirst();
  if (!found) return;
  const parent =
    found.parentId === null
      ? undefined
      : { post_id: found.parentPost, parent_id: found.parentParent };
  const fault = misplacedReply(found, parent, `comment ${found.parent_id}`);
  throw new Error(
    `The backup holds what this site never writes: science_comments row ${found.id} ${fault}`,
  );
}

/**
 * Renders again from its text the HTML a restored backup keeps of each comment
 * (docs/backups.md, "Backups"): pages and reply mails show that HTML as it is,
 * and a file someone else wrote could hold anything there. The number that
 * differed from what this site renders, changed by hand or by another version.
 * Refuses first a backup whose replies are out of place (`assertRepliesPlaced`).
 */
export async function renderRestoredComments(db: Db, pageSize = 500): Promise<number> {
  await assertRepliesPlaced(db);
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
