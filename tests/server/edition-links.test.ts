import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { prerenderedPaths } from "../../app/navigation.ts";
import { servicePath, siteItems } from "../../content/items.ts";
import { loadContent } from "../../content/load.ts";
import {
  editionPreviewResponseSchema,
  editionsResponseSchema,
  queuedResponseSchema,
  testSendResponseSchema,
} from "../../contract/console.ts";
import { editionLinkProblems, editionProblems } from "../../server/newsletter/edition-links.ts";
import { renderEdition } from "../../server/newsletter/editions.ts";
import { fakeBuiltSite } from "../support/built-site.ts";
import { admin, adminEnv } from "./support/admin.ts";
import { Owner } from "./support/owner.ts";
import { type SmtpSink, startSmtpSink } from "./support/smtp.ts";
import { json, siteUrl, startTestApp, type TestApp } from "./support/test-app.ts";

/*
 * A mail is read away from the site: every link and image in an edition is
 * absolute from SITE_URL, its text part is plain text, and the owner is warned
 * at preview, test and send about any link or image that leads nowhere.
 */

const site = {
  "science/pressure-cooker/index.html":
    '<!doctype html><title>cooker</title><main><h1 id="top">Cooker</h1></main>',
  "services/index.html": '<!doctype html><title>services</title><li id="tolerance-stackups">x</li>',
  "og/pressure-cooker.png": "PNG",
};

const markdown = `Hello,

## Pressure

The whole story is in [Why does a pressure cooker cook faster?](/science/pressure-cooker), and
the [stack-ups service](/services#tolerance-stackups) says when each method fits.

![The cooker's weight valve](/og/pressure-cooker.png)

- one **bar** in the kitchen
- two thousand in the engine

Write to [me](mailto:owner@example.com) or read [elsewhere](https://example.org/page).
`;

const broken = `Links that lead nowhere: [a lost page](/science/no-such-post), [a lost card](/services#no-such-card),
[a relative one](pressure-cooker), [a script](javascript:alert(1)) and an image
![lost](/og/missing.png).
`;

describe("an edition rendered for the mail", () => {
  const edition = renderEdition("Pressure in numbers", markdown, "https://engage.example");

  it("makes every link and image absolute from SITE_URL", () => {
    expect(edition.html).toContain('href="https://engage.example/science/pressure-cooker"');
    expect(edition.html).toContain('href="https://engage.example/services#tolerance-stackups"');
    expect(edition.html).toContain('src="https://engage.example/og/pressure-cooker.png"');
    expect(edition.html).toContain('href="mailto:owner@example.com"');
    expect(edition.html).toContain('href="https://example.org/page"');
    expect(edition.html).not.toMatch(/(href|src)="\//);
  });

  it("gives the text part plain text: no Markdown, links with their addresses", () => {
    const { text } = edition;
    expect(text).not.toMatch(/\]\(|\*\*|^## /m);
    expect(text).toContain("Pressure in numbers\n===");
    expect(text).toMatch(
      /Why does a pressure cooker cook\s+faster\?\s+\[https:\/\/engage\.example\/science\/pressure-cooker\]/,
    );
    expect(text).toMatch(/^ \* one bar in the kitchen$/m);
    expect(text).toContain("https://engage.example/og/pressure-cooker.png");
    expect(text).toContain("Unsubscribe: {{unsubscribe_url}}");
    for (const line of text.split("\n")) expect(line.length).toBeLessThanOrEqual(78);
  });

  it("leaves the sample-voice markers out of both parts", () => {
    const marked = renderEdition(
      "Voice",
      "Before.\n<!-- sample-voice -->\nIn my own words.\n<!-- /sample-voice -->\nAfter.\n",
      "https://engage.example",
    );
    expect(marked.html).not.toContain("sample-voice");
    expect(marked.html).toContain("<p>In my own words.</p>");
    expect(marked.text).not.toContain("sample-voice");
    expect(marked.text).toMatch(/Before\.\n\nIn my own words\.\n\nAfter\./);
  });

  it("finds nothing wrong when every link leads somewhere", () => {
    const clientRoot = fakeBuiltSite(site);
    expect(
      editionLinkProblems(edition.links, { siteUrl: "https://engage.example", clientRoot }),
    ).toEqual([]);
  });

  it("names each link and image that leads nowhere", () => {
    const clientRoot = fakeBuiltSite(site);
    const { links } = renderEdition("Lost", broken, "https://engage.example");
    expect(editionLinkProblems(links, { siteUrl: "https://engage.example", clientRoot })).toEqual([
      "The link /science/no-such-post leads to /science/no-such-post, which is not on the site.",
      "The link /services#no-such-card leads to #no-such-card, which is not on /services.",
      "The link pressure-cooker leads to /pressure-cooker, which is not on the site.",
      "The link javascript:alert(1) is not a web address (javascript:).",
      "The image /og/missing.png leads to /og/missing.png, which is not on the site.",
    ]);
  });

  it("names an image loaded from another site, which would learn who opens the edition", () => {
    const clientRoot = fakeBuiltSite(site);
    const { links } = renderEdition(
      "Elsewhere",
      "![A gauge](https://images.example.net/gauge.png)\n\n[A page elsewhere](https://example.org/page)\n",
      "https://engage.example",
    );
    expect(editionLinkProblems(links, { siteUrl: "https://engage.example", clientRoot })).toEqual([
      "The image https://images.example.net/gauge.png is loaded from images.example.net: each reader's mail program would tell that site when they open the edition, and many show it only once asked. Put it in the site's own files (public/) and link it from there.",
    ]);
  });

  it("names raw HTML that a mail program removes, that acts, or that loads from another site", () => {
    const clientRoot = fakeBuiltSite(site);
    const raw = [
      '<script src="https://cdn.example/x.js"></script>',
      '<form action="https://forms.example/in"><input name="email"></form>',
      '<p onclick="steal()" style="color:red;background:url(\'https://pixel.example/open.gif\')">Hello</p>',
      '<table background="https://pixel.example/t.gif"><tr><td>x</td></tr></table>',
      '<img srcset="https://pixel.example/2x.gif 2x, /og/pressure-cooker.png 1x" src="/og/pressure-cooker.png" alt="A cooker">',
      "<style>a { display: none }</style>",
      "Plain **Markdown** and [a page](/science/pressure-cooker) say nothing.",
    ].join("\n\n");
    const edition = renderEdition("Raw", raw, "https://engage.example");
    const loads = (what: string, from: string) =>
      `${what} from ${from}: each reader's mail program would tell that site when they open the edition. Put it in the site's own files (public/) and link it from there.`;
    expect(editionProblems(edition, { siteUrl: "https://engage.example", clientRoot })).toEqual([
      "The edition holds <script>: a script, which mail programs remove (some refuse the whole mail). Take it out.",
      "The edition holds <form>: a form, which most mail programs will not send, and which reads to a reader as phishing. Take it out.",
      "The edition holds <input>: a form's field, which most mail programs will not send. Take it out.",
      "The edition's <p> has an onclick attribute: a script, which mail programs remove. Take it out.",
      loads("The edition's <p> loads https://pixel.example/open.gif (its style)", "pixel.example"),
      loads(
        "The edition's <table> loads https://pixel.example/t.gif (its background)",
        "pixel.example",
      ),
      loads("The edition's <img> loads https://pixel.example/2x.gif (its srcset)", "pixel.example"),
      "The edition holds <style>: a style sheet, which can restyle the whole mail, its unsubscribe link with it. Take it out.",
    ]);
    // The site's own editions hold none of it.
    expect(
      editionProblems(renderEdition("Plain", markdown, "https://engage.example"), {
        siteUrl: "https://engage.example",
        clientRoot,
      }),
    ).toEqual([]);
  });

  it("names drawings, formulas, templates, objects and addresses that run or carry their content", () => {
    const clientRoot = fakeBuiltSite(site);
    const raw = [
      '<svg width="10" height="10"><circle r="5" onload="alert(1)"/></svg>',
      "<math><mi>p</mi><mo>=</mo><mi>F</mi></math>",
      "<template><p>Shown by a script</p></template>",
      '<object data="/og/pressure-cooker.png"></object>',
      '<map name="m"><area href=" JAVA&#x09;script:steal()" alt="x"></map>',
      '<video poster="data:image/gif;base64,R0lGODlhAQABAAAAACw=" src="/og/clip.mp4"></video>',
      '<table background="vbscript:msgbox(1)"><tr><td>x</td></tr></table>',
      '<a href="data:text/html,<b>hi</b>">a page in the link</a>',
      "Plain [a page](/science/pressure-cooker) says nothing.",
    ].join("\n\n");
    const problems = editionProblems(renderEdition("Raw", raw, "https://engage.example"), {
      siteUrl: "https://engage.example",
      clientRoot,
    });
    expect(problems).toEqual([
      // A link's own address is the links' check's, said once.
      "The link data:text/html,<b>hi</b> is not a web address (data:).",
      "The edition holds <svg>: a drawing in SVG, which most mail programs remove (Gmail and Outlook among them), and whose links and scripts they do not check as a page's. Take it out.",
      "The edition's <circle> has an onload attribute: a script, which mail programs remove. Take it out.",
      "The edition holds <math>: a formula in MathML, which most mail programs remove or show as bare text. Take it out.",
      "The edition holds <template>: a template, whose content no mail program shows. Take it out.",
      "The edition holds <object>: an embedded object, which mail programs remove. Take it out.",
      "The edition's <area> has a javascript: address in its href: a script, which mail programs remove. Take it out.",
      "The edition's <video> has a data: address in its poster: the content itself, which mail programs block or remove. Put the file in the site's own files (public/) and link it from there.",
      "The edition's <table> has a vbscript: address in its background: a script, which mail programs remove. Take it out.",
    ]);
  });

  it("says so once when there is no built site to check against", () => {
    const { links } = renderEdition("Lost", broken, "https://engage.example");
    const problems = editionLinkProblems(links, {
      siteUrl: "https://engage.example",
      clientRoot: path.join(os.tmpdir(), "ewe-no-such-build"),
    });
    expect(problems.filter((p) => p.includes("could not be checked"))).toHaveLength(1);
    expect(problems).toContain("The link javascript:alert(1) is not a web address (javascript:).");
  });
});

describe("editions in the console, the command line and the mail", () => {
  let t: TestApp;
  let smtp: SmtpSink;
  let editionsDir: string;
  const clientFiles = site;

  beforeAll(async () => {
    smtp = await startSmtpSink();
    editionsDir = mkdtempSync(path.join(os.tmpdir(), "ewe-editions-"));
    writeFileSync(
      path.join(editionsDir, "2026-07-pressure.md"),
      `---\nsubject: Pressure in numbers\n---\n${markdown}`,
    );
    writeFileSync(path.join(editionsDir, "2026-08-lost.md"), `---\nsubject: Lost\n---\n${broken}`);
    t = await startTestApp("sqlite", {
      env: { EDITIONS_DIR: editionsDir, SMTP_URL: smtp.url },
      clientFiles,
    });
  });
  afterAll(async () => {
    await t?.close();
    await smtp?.close();
  });

  it("warns in the list, at preview, with the test copy and at sending", async () => {
    const owner = new Owner(t);
    await owner.signIn();
    const { editions } = json(await owner.get("/api/admin/editions"), editionsResponseSchema);
    const bySlug = (slug: string) => editions.find((e) => e.slug === slug);
    expect(bySlug("2026-07-pressure")?.warnings).toEqual([]);
    expect(bySlug("2026-08-lost")?.warnings).toHaveLength(5);

    const preview = json(
      await owner.get("/api/admin/editions/2026-08-lost"),
      editionPreviewResponseSchema,
    );
    expect(preview.warnings).toEqual(bySlug("2026-08-lost")?.warnings);
    expect(preview.html).toContain(`src="${siteUrl}/og/missing.png"`);

    const test = await owner.post("/api/admin/editions/2026-08-lost/test", {
      to: "me@example.com",
    });
    expect(test.statusCode).toBe(202);
    expect(json(test, testSendResponseSchema).warnings).toEqual(preview.warnings);

    const sent = await owner.post("/api/admin/editions/2026-08-lost/send");
    expect(sent.statusCode).toBe(202);
    expect(json(sent, queuedResponseSchema).warnings).toEqual(preview.warnings);
  });

  it("sends a test copy whose links and images all start with SITE_URL, with a plain-text part", async () => {
    const owner = new Owner(t);
    await owner.signIn();
    const test = await owner.post("/api/admin/editions/2026-07-pressure/test", {
      to: "copy@example.com",
    });
    expect(test.statusCode).toBe(202);
    expect(json(test, testSendResponseSchema)).toEqual({ sent: "mail", warnings: [] });
    await smtp.waitFor(() => smtp.to("copy@example.com").length === 1);
    const { parsed } = smtp.to("copy@example.com")[0]!;
    const html = String(parsed.html);
    const addresses = [...html.matchAll(/\s(?:href|src)="([^"]*)"/g)].map((m) => m[1] ?? "");
    expect(addresses.length).toBeGreaterThanOrEqual(6);
    for (const address of addresses) {
      expect(address).toMatch(/^(https?:\/\/|mailto:)/);
    }
    expect(html).toContain(`href="${siteUrl}/science/pressure-cooker"`);
    expect(html).toContain(`src="${siteUrl}/og/pressure-cooker.png"`);
    expect(parsed.text).toContain(`[${siteUrl}/science/pressure-cooker]`);
    expect(parsed.text).not.toMatch(/\]\(|\*\*/);
    expect(parsed.text).toMatch(/Unsubscribe: http:\/\/ewe\.test\/unsubscribe\?token=/);
  });

  it("prints the warnings on the command line at preview, test and send", async () => {
    const env = { ...adminEnv(t), CLIENT_ROOT: fakeBuiltSite(clientFiles), SMTP_URL: smtp.url };
    const file = path.join(editionsDir, "2026-08-lost.md");
    const out = path.join(mkdtempSync(path.join(os.tmpdir(), "ewe-preview-")), "lost.html");
    for (const argv of [
      ["newsletter", "preview", file, "--out", out],
      ["newsletter", "send", file, "--test", "cli@example.com"],
      ["newsletter", "send", file, "--yes"],
    ]) {
      const run = await admin(env, ...argv);
      expect(run.code, run.stderr).toBe(0);
      expect(run.stderr.match(/^Warning: /gm), argv.join(" ")).toHaveLength(5);
      expect(run.stderr).toContain(
        "Warning: The image /og/missing.png leads to /og/missing.png, which is not on the site.",
      );
    }
    const clean = await admin(
      env,
      "newsletter",
      "preview",
      path.join(editionsDir, "2026-07-pressure.md"),
    );
    expect(clean.code).toBe(0);
    expect(clean.stderr).not.toContain("Warning");
  });

  it("warns at preview of an image without a description", async () => {
    const env = { ...adminEnv(t), CLIENT_ROOT: fakeBuiltSite(clientFiles) };
    const folder = mkdtempSync(path.join(os.tmpdir(), "ewe-alt-"));
    const file = path.join(folder, "pictures.md");
    writeFileSync(
      file,
      "---\nsubject: Pictures\n---\n![](/og/pressure-cooker.png)\n\n![ ](/og/pressure-cooker.png)\n\n![The cooker's weight valve](/og/pressure-cooker.png)\n",
    );
    const run = await admin(
      env,
      "newsletter",
      "preview",
      file,
      "--out",
      path.join(folder, "p.html"),
    );
    expect(run.code, run.stderr).toBe(0);
    const warning = `Warning: The image ${siteUrl}/og/pressure-cooker.png has no description: write what it shows between the brackets, ![what it shows](…), for screen readers and for mail programs that show no images.`;
    expect(run.stderr.split("\n").filter((line) => line === warning)).toHaveLength(2);
    expect(run.stderr.match(/^Warning: /gm)).toHaveLength(2);
  });

  it("warns at preview of an edition long enough for Gmail to cut off its end and unsubscribe link", async () => {
    const env = { ...adminEnv(t), CLIENT_ROOT: fakeBuiltSite(clientFiles) };
    const folder = mkdtempSync(path.join(os.tmpdir(), "ewe-long-"));
    const paragraph =
      "The rail holds fuel at two thousand bar, and each injector opens for a fraction of a millisecond. ";
    const write = (name: string, paragraphs: number) => {
      const file = path.join(folder, name);
      writeFileSync(
        file,
        `---\nsubject: A long one\n---\n${Array.from({ length: paragraphs }, () => paragraph.repeat(5)).join("\n\n")}\n`,
      );
      return file;
    };
    const out = path.join(folder, "preview.html");
    const long = await admin(env, "newsletter", "preview", write("long.md", 220), "--out", out);
    expect(long.code, long.stderr).toBe(0);
    expect(long.stderr).toMatch(
      /^Warning: The edition is 1\d\d KB of HTML: Gmail shows a mail over 102 KB cut short, its end and the unsubscribe link behind "View entire message"\./m,
    );
    // Some 9,000 words are not.
    const shorter = await admin(
      env,
      "newsletter",
      "preview",
      write("shorter.md", 100),
      "--out",
      out,
    );
    expect(shorter.stderr).not.toContain("Warning");
  });
});

describe("the editions in newsletter/", () => {
  const editionsDir = path.join(import.meta.dirname, "../../newsletter");
  const files = readdirSync(editionsDir).filter((name) => name.endsWith(".md"));
  const content = loadContent();
  const items = siteItems(content);

  /**
   * The site's routes as the content defines them, each page with the ids a
   * link's #fragment may name: every list page's cards, /services' cards and
   * each service's own page.
   */
  function routesOfContent(): string {
    const ids = new Map<string, string[]>(prerenderedPaths.map((route) => [route, []]));
    for (const item of items) {
      ids.set(item.path, []);
      ids.get(`/${item.section.id}`)?.push(item.slug);
    }
    ids.get("/services")?.push(...content.services.map((service) => service.id));
    for (const service of content.services) ids.set(servicePath(service.id), []);
    return fakeBuiltSite(
      Object.fromEntries(
        [...ids].map(([route, anchors]) => [
          `${route === "/" ? "" : `${route.slice(1)}/`}index.html`,
          `<!doctype html><title>${route}</title>${anchors.map((id) => `<li id="${id}"></li>`).join("")}`,
        ]),
      ),
    );
  }

  it("holds the three real editions", () => {
    expect(files).toHaveLength(3);
  });

  it.each(files)(
    "%s previews with every link and image absolute from SITE_URL, each leading to a page of the site",
    async (file) => {
      const out = path.join(mkdtempSync(path.join(os.tmpdir(), "ewe-edition-")), "preview.html");
      const env = {
        NODE_ENV: "test",
        SITE_URL: "https://engage.example.org",
        DATA_DIR: mkdtempSync(path.join(os.tmpdir(), "ewe-edition-data-")),
        CLIENT_ROOT: routesOfContent(),
      };
      const run = await admin(
        env,
        "newsletter",
        "preview",
        path.join(editionsDir, file),
        "--out",
        out,
      );
      expect(run.code, run.stderr).toBe(0);
      expect(run.stderr).toBe("");
      const html = readFileSync(out, "utf8");
      const addresses = [...html.matchAll(/<(?:a|img)\b[^>]*\s(?:href|src)="([^"]*)"/g)].map(
        (match) => match[1] ?? "",
      );
      // The edition's own links to the site, and the unsubscribe link.
      expect(addresses.length).toBeGreaterThanOrEqual(3);
      for (const address of addresses) expect(address).toMatch(/^https:\/\/engage\.example\.org\//);
      expect(html).not.toMatch(/engage-with-engineer\.example/);
    },
  );
});
