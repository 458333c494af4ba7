import { describe, expect, it } from "vitest";
import { withoutDirections } from "./text-directions.ts";

describe("a stored comment's text-direction characters taken out", () => {
  it("takes out both marks by name, and leaves other references", () => {
    expect(
      withoutDirections({ content: "a&lrm;b&rlm;c &amp; d", content_html: null })?.content,
    ).toBe("abc &amp; d");
  });

  it("takes out a reference that taking out another put together", () => {
    for (const content of ["&&rlm;#x202E;evil", "&#x20&#x202E;2E;evil", "&\u202E#x202E;evil"]) {
      expect(withoutDirections({ content, content_html: null })?.content).toBe("evil");
    }
  });

  it("leaves a comment whose HTML shows none, as a reference written in code", () => {
    const row = { content: "`&#x202E;`", content_html: "<p><code>&amp;#x202E;</code></p>" };
    expect(withoutDirections(row)).toBeNull();
  });
});
