import { describe, expect, it } from "vitest";
import { redactUrl } from "../../server/logging.ts";

describe("redacting URLs in logs", () => {
  const token = "q3Vn1zYh0pXc6o2m8b5KwTnRrLdAeGfHiJkS4uE7t9a";

  it.each([
    ["plainly", `/unsubscribe?token=${token}`, "/unsubscribe?token=[redacted]"],
    ["in capitals", `/unsubscribe?TOKEN=${token}`, "/unsubscribe?TOKEN=[redacted]"],
    ["percent-encoded", `/unsubscribe?%74oken=${token}`, "/unsubscribe?%74oken=[redacted]"],
    ["partly encoded", `/u?a=1&t%6F%6Ben=${token}&b=2`, "/u?a=1&t%6F%6Ben=[redacted]&b=2"],
    ["twice", `/u?token=${token}&token=${token}`, "/u?token=[redacted]&token=[redacted]"],
    ["before a fragment", `/u?token=${token}#x`, "/u?token=[redacted]#x"],
  ])("hides a token passed %s", (_case, url, expected) => {
    expect(redactUrl(url)).toBe(expected);
  });

  it("leaves other parameters, malformed encodings and paths alone", () => {
    for (const url of ["/science/wifi", "/u?ref=mail&page=2", "/u?%E0%A4%A=1", "/token=x"]) {
      expect(redactUrl(url)).toBe(url);
    }
  });
});
