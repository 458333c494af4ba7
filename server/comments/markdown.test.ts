import { describe, expect, it } from "vitest";
import { renderComment } from "./markdown.ts";

/*
 * What a reader's Markdown can never become (docs/product.md, "Comments"): a
 * link to anything but an http(s) page, whatever syntax or encoding it is
 * written in, raw HTML, or an image. Each case is the HTML every reader gets.
 */
describe("a comment's Markdown", () => {
  it.each([
    ["an inline link", "[run](javascript:alert(1))", "<p>[run](javascript:alert(1))</p>"],
    ["in capitals", "[run](JAVASCRIPT:alert(1))", "<p>[run](JAVASCRIPT:alert(1))</p>"],
    [
      "in angle brackets",
      "[run](<javascript:alert(1)>)",
      "<p>[run](&lt;javascript:alert(1)&gt;)</p>",
    ],
    [
      "a reference",
      "[run][x]\n\n[x]: javascript:alert(1)",
      "<p>[run][x]</p>\n<p>[x]: javascript:alert(1)</p>",
    ],
    [
      "a collapsed reference",
      "[run][]\n\n[run]: javascript:alert(1)",
      "<p>[run][]</p>\n<p>[run]: javascript:alert(1)</p>",
    ],
    ["an autolink", "<javascript:alert(1)>", "<p>&lt;javascript:alert(1)&gt;</p>"],
    [
      "decimal entities",
      "[run](&#106;avascript&#58;alert(1))",
      "<p>[run](javascript:alert(1))</p>",
    ],
    [
      "hexadecimal entities",
      "[run](&#x6A;&#x61;vascript&#x3A;alert(1))",
      "<p>[run](javascript:alert(1))</p>",
    ],
    ["a named entity", "[run](javascript&colon;alert(1))", "<p>[run](javascript:alert(1))</p>"],
    ["a tab inside", "[run](java\tscript:alert(1))", "<p>[run](java\tscript:alert(1))</p>"],
    ["percent-encoded", "[run](%6Aavascript:alert(1))", "<p>[run](%6Aavascript:alert(1))</p>"],
    [
      "a data: page",
      "[run](data:text/html;base64,PHNjcmlwdD4=)",
      "<p>[run](data:text/html;base64,PHNjcmlwdD4=)</p>",
    ],
    [
      "a data: image",
      "![x](data:image/png;base64,iVBORw0KGgo=)",
      "<p>![x](data:image/png;base64,iVBORw0KGgo=)</p>",
    ],
    ["vbscript:", "[run](vbscript:msgbox(1))", "<p>[run](vbscript:msgbox(1))</p>"],
    [
      "mailto:",
      "[mail](mailto:a@b.example) <a@b.example>",
      "<p>[mail](mailto:a@b.example) &lt;a@b.example&gt;</p>",
    ],
    ["a relative path", "[here](/admin)", "<p>[here](/admin)</p>"],
    ["protocol-relative", "[here](//evil.example)", "<p>[here](//evil.example)</p>"],
    ["http without a host", "[here](http:///evil)", "<p>[here](http:///evil)</p>"],
    [
      "an HTML link",
      '<a href="javascript:alert(1)">run</a>',
      "<p>&lt;a href=&quot;javascript:alert(1)&quot;&gt;run&lt;/a&gt;</p>",
    ],
    ["an HTML image", "<img src=x onerror=alert(1)>", "<p>&lt;img src=x onerror=alert(1)&gt;</p>"],
    ["a script", "<script>alert(1)</script>", "<p>&lt;script&gt;alert(1)&lt;/script&gt;</p>"],
  ])("keeps %s as the text typed", (_syntax, source, html) => {
    expect(renderComment(source)).toBe(html);
  });

  it("links http(s) pages, inline or in angle brackets, with the rel of user content", () => {
    expect(
      renderComment('[a](https://ok.example/a?b=1&c="2" "its title") <http://ok.example>'),
    ).toBe(
      '<p><a href="https://ok.example/a?b=1&amp;c=%222%22" title="its title" rel="nofollow ugc noopener">a</a> <a href="http://ok.example" rel="nofollow ugc noopener">http://ok.example</a></p>',
    );
  });

  it("shows an image as its mark and a link to it, never the picture", () => {
    expect(renderComment("![a cooker](https://img.example/x.png)")).toBe(
      '<p>!<a href="https://img.example/x.png" rel="nofollow ugc noopener">a cooker</a></p>',
    );
  });

  it("leaves a bare address as text", () => {
    expect(renderComment("see https://ok.example and www.ok.example")).toBe(
      "<p>see https://ok.example and www.ok.example</p>",
    );
  });
});
