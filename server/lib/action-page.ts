import { escapeHtml } from "../../contract/html.ts";

/**
 * The small page behind the owner's action links: plain HTML from the
 * server, no script, so it works in any mail program's browser and with
 * JavaScript off (docs/decisions/011-owner-notifications.md). Everything a
 * visitor wrote is escaped.
 */
export type ActionPage = {
  title: string;
  /** The line above the title: whose page this is. */
  note?: string;
  /** Trusted HTML: built here from escaped parts. */
  body: string;
};

export function renderActionPage({
  title,
  body,
  note = "Engage with Engineer · owner",
}: ActionPage): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<meta name="color-scheme" content="dark">
<title>${escapeHtml(title)} · Engage with Engineer</title>
<style>
body{margin:0;background:#0b0f14;color:#e2e8f0;font:16px/1.6 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif}
main{max-width:40rem;margin:0 auto;padding:3rem 1.25rem}
h1{font-size:1.5rem;line-height:1.3;color:#f8fafc;margin:0 0 1rem}
p{margin:0 0 1rem}
blockquote{margin:0 0 1.5rem;padding:.75rem 1rem;border-left:3px solid #22c55e;background:#111821;white-space:pre-wrap;overflow-wrap:anywhere}
.meta{color:#cbd5e1}
.note{color:#94a3b8;font-size:.9rem}
button{font:inherit;font-weight:600;border:0;border-radius:.5rem;padding:.6rem 1.2rem;cursor:pointer;background:#22c55e;color:#0b0f14}
button.danger{background:#fca5a5;color:#450a0a}
button:focus-visible,a:focus-visible{outline:3px solid #f8fafc;outline-offset:2px}
a{color:#4ade80}
dl{display:grid;grid-template-columns:max-content 1fr;gap:.25rem 1rem;margin:0 0 1rem}
dt{color:#94a3b8}
dd{margin:0;overflow-wrap:anywhere}
ul.problems{margin:0 0 1rem;padding:.75rem 1rem .75rem 2rem;border-left:3px solid #fca5a5;background:#111821}
</style>
</head>
<body>
<main>
<p class="note">${escapeHtml(note)}</p>
<h1>${escapeHtml(title)}</h1>
${body}
</main>
</body>
</html>
`;
}

export const paragraph = (text: string, className?: string) =>
  `<p${className ? ` class="${className}"` : ""}>${escapeHtml(text)}</p>`;
