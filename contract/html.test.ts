import { describe, expect, it } from "vitest";
import { decodeHtmlEntities, escapeHtml } from "./html.ts";

describe("HTML text", () => {
  it("escapes what could end an element or a quoted attribute", () => {
    expect(escapeHtml(`<a href="x" title='y'>&amp;</a>`)).toBe(
      "&lt;a href=&quot;x&quot; title=&#39;y&#39;&gt;&amp;amp;&lt;/a&gt;",
    );
  });

  it("decodes what it escaped, back to the same text", () => {
    for (const text of [`Tom & "Jerry" <3 'cheese'`, "&amp; stays &amp;", "a&b;c", "&#39;"]) {
      expect(decodeHtmlEntities(escapeHtml(text))).toBe(text);
    }
  });

  it("decodes named and numeric references, and leaves unknown or invalid ones as written", () => {
    expect(
      decodeHtmlEntities("&lt;b&gt; &quot;q&quot; &apos;a&apos; &#x27;h&#X27; &#39;d&#39;"),
    ).toBe(`<b> "q" 'a' 'h' 'd'`);
    expect(decodeHtmlEntities("caf&#233; &#x1F600; a&nbsp;b")).toBe("café 😀 a\u00a0b");
    expect(decodeHtmlEntities("&copy2; &unknown; &#0; &#xD800; &#x110000; & ;")).toBe(
      "&copy2; &unknown; &#0; &#xD800; &#x110000; & ;",
    );
  });
});
