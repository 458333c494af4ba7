import { type Kysely, sql } from "kysely";
import type { Migration } from "kysely/migration";
import { withoutDirections } from "./text-directions.ts";

/**
 * A comment may hold no text-direction character, typed or written as a
 * character reference (`&#x202E;`), which Markdown renders as the character.
 * Comments stored before the reference was refused kept it, and ran backwards
 * on pages and in mails, and their export was refused at import. Each comment
 * whose HTML shows such a character loses it, as `withoutDirections` says
 * (text-directions.ts, which the import of an older export shares). Its edit
 * time stays: the writer changed nothing.
 * This text is frozen once shipped.
 */
export function commentDirections(): Migration {
  return {
    async up(db: Kysely<unknown>) {
      for (let after = 0; ; ) {
        const { rows } = await sql<{ id: number; content: string; content_html: string | null }>`
          select id, content, content_html from science_comments
          where id > ${after} order by id limit 500`.execute(db);
        for (const row of rows) {
          const cleaned = withoutDirections(row);
          if (!cleaned) continue;
          await sql`update science_comments set
              content = ${cleaned.content}, content_html = ${cleaned.content_html}
            where id = ${row.id}`.execute(db);
        }
        const last = rows.at(-1);
        if (!last || rows.length < 500) return;
        after = Number(last.id);
      }
    },
  };
}
