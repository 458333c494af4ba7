import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { commentEventSchema, type LiveComment } from "../../contract/live-events.ts";
import { renderComment } from "../../server/comments/markdown.ts";
import { createEventJournal } from "../../server/events/journal.ts";
import { scratchStore } from "./support/scratch-store.ts";
import { backends } from "./support/test-app.ts";

/*
 * Migration 062: the live events kept for pages that reconnect (a day of them)
 * carry the comments migration 061 cleaned as 061 left them, so a page replayed
 * them shows no text running backwards; the rest of the journal is as it was.
 */
describe.each(backends)(
  "live events of comments with text-direction characters, migrated, on %s",
  (backend) => {
    let scratch: Awaited<ReturnType<typeof scratchStore>>;
    beforeAll(async () => {
      scratch = await scratchStore(backend);
    });
    afterAll(async () => {
      await scratch?.drop();
    });

    const topic = "science:soap";
    const at = "2026-12-07T10:00:00.000Z";
    const comment = (id: number, content: string): LiveComment => ({
      id,
      postId: "soap",
      content,
      html: renderComment(content),
      userName: "Asha",
      avatar: "0123456789abcdef",
      createdAt: at,
      updatedAt: at,
      byOwner: false,
      parentId: null,
      deleted: false,
    });
    /** What a page that reconnects is replayed: the topic's comment events, in order. */
    const replayed = async () =>
      (await createEventJournal(scratch.store).after(0, 100, topic)).map((event) =>
        commentEventSchema.parse(JSON.parse(event.data)),
      );

    it("carry each cleaned comment as the migration left it, and every other event as it was", async () => {
      await scratch.migrateTo("061_comment_directions");
      // As the version before recorded them: the HTML rendered with the characters.
      const journal = createEventJournal(scratch.store);
      const written = [
        "Nice &#x202E;evil&#x202C; post",
        "&#x202E;",
        "Type `&#x202E;` to flip",
        "Plain",
      ];
      await scratch.store.db.transaction().execute((trx) =>
        journal.recordAll(trx, [
          ...written.map((content, index) => ({
            topic,
            type: "comment" as const,
            value: {
              action: "added" as const,
              item: { kind: "science" as const, id: "soap" },
              commentId: index + 1,
              comment: comment(index + 1, content),
            },
          })),
          {
            topic,
            type: "comment" as const,
            value: {
              action: "deleted" as const,
              item: { kind: "science" as const, id: "soap" },
              commentId: 4,
            },
          },
        ]),
      );
      const before = await replayed();
      expect(before.map((event) => "comment" in event && event.comment.html).join("")).toContain(
        "\u202E",
      );

      await scratch.migrateTo("062_event_directions");
      const after = await replayed();
      expect(after.map((event) => ("comment" in event ? event.comment.content : null))).toEqual([
        "Nice evil post",
        "",
        "Type `&#x202E;` to flip",
        // Deleted since: its earlier event carries no text, as the journal keeps it.
        null,
        null,
      ]);
      expect(after.map((event) => ("comment" in event ? event.comment.html : null))).toEqual([
        renderComment("Nice evil post"),
        "<p></p>",
        renderComment("Type `&#x202E;` to flip"),
        null,
        null,
      ]);
      // Otherwise as recorded: the same events in the same order, under the same ids.
      expect(after.map(({ action, commentId }) => [action, commentId])).toEqual(
        before.map(({ action, commentId }) => [action, commentId]),
      );
      expect(after[0]).toEqual({
        ...before[0],
        comment: {
          ...(before[0] as { comment: LiveComment }).comment,
          content: "Nice evil post",
          html: renderComment("Nice evil post"),
        },
      });
    });
  },
);
