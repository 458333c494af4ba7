import { type DefaultTreeAdapterMap, parseFragment } from "parse5";

/*
 * What raw HTML in an edition's Markdown does in a mail (docs/mail.md, "Newsletter
 * editions"): the owner may write any, and a snippet pasted from elsewhere may carry
 * what no edition should. It reaches readers' mail programs alone (the console's
 * preview shows it in a sandbox, where nothing runs): no page of the site shows an
 * edition. Each element or attribute a mail program removes, or that acts, and each
 * address it loads from another site, is named for the owner before sending.
 */

/** Elements a mail program removes or will not run, and what each is. */
const refused: Record<string, string> = {
  script: "a script, which mail programs remove (some refuse the whole mail)",
  noscript: "what shows without scripts, which mail programs show or hide as they please",
  iframe: "an embedded page, which mail programs remove",
  frame: "an embedded page, which mail programs remove",
  object: "an embedded object, which mail programs remove",
  embed: "an embedded object, which mail programs remove",
  applet: "an embedded object, which mail programs remove",
  form: "a form, which most mail programs will not send, and which reads to a reader as phishing",
  input: "a form's field, which most mail programs will not send",
  button: "a form's button, which most mail programs will not send",
  select: "a form's field, which most mail programs will not send",
  textarea: "a form's field, which most mail programs will not send",
  style: "a style sheet, which can restyle the whole mail, its unsubscribe link with it",
  link: "a link to a style sheet or another file, which mail programs remove",
  meta: "a page's setting, which has no place in a mail's text",
  base: "a base address, which would send every link of the mail elsewhere",
  svg: "a drawing in SVG, which most mail programs remove (Gmail and Outlook among them), and whose links and scripts they do not check as a page's",
  math: "a formula in MathML, which most mail programs remove or show as bare text",
  template: "a template, whose content no mail program shows",
};

/** Attributes whose value is an address a mail program loads as the mail opens. */
const loading = new Set(["src", "srcset", "background", "poster", "data", "lowsrc", "dynsrc"]);
/** Attributes whose value is an address that is followed or loaded. */
const addressed = new Set([...loading, "href", "xlink:href", "action", "formaction", "cite"]);

/**
 * The scheme of an address that runs or carries its content itself (`javascript:`,
 * `vbscript:`, `data:`), as a browser reads it: blanks and control characters within
 * are skipped, and the case does not count. Null for any other address.
 */
function actingScheme(address: string): string | null {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: a browser skips them, so does this.
  const bare = address.replace(/[\u0000-\u0020]/g, "").toLowerCase();
  return /^(javascript|vbscript|data):/.exec(bare)?.[1] ?? null;
}

type Node = DefaultTreeAdapterMap["node"];

/**
 * The problems of the raw HTML in an edition's body (`bodyHtml`, its links absolute
 * from `siteUrl`), one sentence each, in the order they first appear. An image's `src`
 * is left to the links' check (edition-links.ts), which names one from another site.
 */
export function markupProblems(bodyHtml: string, siteUrl: string): string[] {
  const site = new URL(siteUrl).origin;
  const problems = new Set<string>();
  const stack: Node[] = [parseFragment(bodyHtml)];
  for (let node = stack.pop(); node !== undefined; node = stack.pop()) {
    if ("tagName" in node) {
      const tag = node.tagName;
      const why = refused[tag];
      if (why) problems.add(`The edition holds <${tag}>: ${why}. Take it out.`);
      // Taken out, it loads nothing: its attributes need no word of their own.
      for (const { name, value } of why ? [] : node.attrs) {
        if (/^on/i.test(name)) {
          problems.add(
            `The edition's <${tag}> has an ${name} attribute: a script, which mail programs remove. Take it out.`,
          );
          continue;
        }
        // A link's href and an image's src are the links' check's (edition-links.ts).
        const checkedThere = (tag === "a" && name === "href") || (tag === "img" && name === "src");
        const scheme = addressed.has(name) && !checkedThere ? actingScheme(value) : null;
        if (scheme) {
          problems.add(
            scheme === "data"
              ? `The edition's <${tag}> has a data: address in its ${name}: the content itself, which mail programs block or remove. Put the file in the site's own files (public/) and link it from there.`
              : `The edition's <${tag}> has a ${scheme}: address in its ${name}: a script, which mail programs remove. Take it out.`,
          );
          continue;
        }
        const addresses =
          name === "style"
            ? [...value.matchAll(/url\(\s*(["']?)([^"')]*)\1\s*\)/gi)].map(
                (match) => match[2] ?? "",
              )
            : loading.has(name) && !(tag === "img" && name === "src")
              ? value.split(",").map((part) => part.trim().split(/\s+/)[0] ?? "")
              : [];
        for (const address of addresses) {
          const url = URL.parse(address, `${site}/`);
          if (!url || !/^https?:$/.test(url.protocol) || url.origin === site) continue;
          problems.add(
            `The edition's <${tag}> loads ${address} (its ${name}) from ${url.host}: each reader's mail program would tell that site when they open the edition. Put it in the site's own files (public/) and link it from there.`,
          );
        }
      }
    }
    if ("childNodes" in node) stack.push(...[...node.childNodes].reverse());
    if ("content" in node) stack.push(node.content);
  }
  return [...problems];
}
