import { describe, expect, it } from "vitest";
import { timesHtml } from "./form-html.ts";

describe("the booking form as the server writes it", () => {
  it("says once, with one link, what to do when no time is free", () => {
    const html = timesHtml([], "Asia/Kolkata");
    expect(html.replace(/<[^>]+>/g, "")).toBe(
      "No free times in the coming weeks. Send an enquiry instead.",
    );
    expect(html.match(/<a href="\/services#send-enquiry">Send an enquiry<\/a>/g)).toHaveLength(1);
  });
});
