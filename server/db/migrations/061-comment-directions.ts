import { type Kysely, sql } from "kysely";
import type { Migration } from "kysely/migration";

/** The text-direction characters (Unicode's Bidi_Control), as Unicode 16 lists them. */
const directions = /[\u061C\u200E\u200F\u202A-\u202E\u2066-\u2069]/g;
/**
 * A character reference Markdown renders as one of them: hexadecimal of at
 * most six digits, decimal of at most seven, or `&lrm;` and `&rlm;`.
 */
const references =
  /&#[xX](?=[0-9a-fA-F]{1,6};)0*(?:61[cC]|200[eEfF]|202[a-eA-E]|206[6-9]);|&#(?=[0-9]{1,7};)0*(?:1564|8206|8207|823[4-8]|829[4-7]);|&[lr]lm;/g;

/**
 * A comment may hold no text-direction character, typed or written as a
 * character reference (`&#x202E;`), which Markdown renders as the character.
 * Comments stored before the reference was refused kept it, and ran backwards
 * on pages and in mails, and their export was refused at import. Each comment
 * whose HTML shows such a character (or, older than Markdown and rendered when
 * read, whose text would) loses it from its HTML and its text, references and
 * all; those whose HTML shows none, as a reference in code, are left as they
 * are. Its edit time stays: the writer changed nothing.
 * This text is frozen once shipped.
 */
export function commentDirections(): Migration {
  const shows = (row: { content: string; content_html: string | null }) =>
    row.content_html === null
      ? row.content.search(directions) >= 0 || row.content.search(references) >= 0
      : row.content_html.search(directions) >= 0;
  return {
    async up(db: Kysely<unknown>) {
      for (let after = 0; ; ) {
        const { rows } = await sql<{ id: number; content: string; content_html: string | null }>`
          select id, content, content_html from science_comments
          where id > ${after} order by id limit 500`.execute(db);
        for (const row of rows) {
          if (!shows(row)) continue;
          await sql`update science_comments set
              content = ${row.content.replace(references, "").replace(directions, "")},
              content_html = ${row.content_html?.replace(directions, "") ?? null}
            where id = ${row.id}`.execute(db);
        }
        const last = rows.at(-1);
        if (!last || rows.length < 500) return;
        after = Number(last.id);
      }
    },
  };
}
