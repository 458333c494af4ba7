import { type Command, lazily } from "../command.ts";

const exportHandler = () => import("../handlers/export.ts");
const importHandler = () => import("../handlers/import.ts");

export const portabilityCommands: Command[] = [
  {
    name: "export",
    usage: "[--out FILE]",
    summary: "everything the site holds, as one JSON file",
    help: `Writes everything the site owns to one JSON file (described by
docs/export-schema.json): comments and replies, reactions, subscribers and
their states, editions and who was sent them, bans, enquiries and answers,
the audit trail, what the spam filter learned, and the settings that are not
secrets (for reference: configuration comes from the environment). It works
on SQLite and PostgreSQL while the site runs, and streams, so a large site
exports in little memory. "import --from export" reads it back: that is also
how a site moves from SQLite to PostgreSQL.

  --out FILE   write to FILE (readable by you only), else to standard output`,
    run: lazily(exportHandler, "exportAll"),
  },
  {
    name: "import",
    usage: "--from original|disqus|wordpress|export [--dry-run] [--map FILE] FILE",
    summary: "bring in comments, reactions and subscribers from elsewhere",
    help: `Imports FILE into the site, which may be running: open pages show what
arrives without a restart. The whole input is checked first; if anything is
wrong, every problem is listed with its line or element and nothing is
written. Then it is written, a batch per transaction (an export: all in one).
Running the same import again changes nothing: each row is known by its
source's own id.

  --from original    the original site's tables, exported from its hosted
                     backend: FILE is a folder holding any of subscribers,
                     mythology_reactions, science_reactions and
                     science_comments (each .csv with a header row or .json,
                     an array of rows; "_rows" after the name is fine), or one
                     such file. Comments keep names, text and times; reactions
                     count once per item, type and name; subscribers come in
                     pending (see --subscribers)
  --subscribers pending|confirmed
                     pending (the default): nothing is sent to an imported
                     address until it confirms; "newsletter reconfirm" asks.
                     confirmed: only with --legal-basis "…", which the audit
                     trail keeps
  --from export      a file written by "export", read back whole, into a new
                     DATA_DIR too (its database is made). A row whose id this
                     site has takes a new one, and its replies follow it; rows
                     already here are kept. Comments pass a new comment's rules
                     and are rendered from their text; the owner's keep the
                     Author badge only if the file is this site's own export
                     (same cookie secret)
  --from disqus      a Disqus XML export: published posts and their replies;
                     deleted and spam posts are skipped, emails not read
  --from wordpress   a WordPress export (WXR): approved comments with their
                     parents; pingbacks, held and spam comments are skipped
  --map FILE         a JSON object from the source's thread id, slug or address
                     to a science post id (or "mythology/" and a story's id),
                     for pages not matched by themselves
  --dry-run          check and list what would be imported, write nothing

See docs/backups.md, "Moving in and out", for each kind and an example.`,
    options: { subscribers: { type: "string" }, "legal-basis": { type: "string" } },
    run: lazily(importHandler, "importFile"),
  },
];
