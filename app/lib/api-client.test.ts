import { describe, expect, it } from "vitest";
import { ApiError, formRefusal } from "./api-client.ts";

const offline = "The site did not answer.";

describe("a form's refusal", () => {
  it("puts each named field's message beside it, and asks above the form to correct them", () => {
    const error = new ApiError(
      400,
      "validation_failed",
      "body.email: Enter an address; body.note: Too long; body.formToken: Stale",
    );
    expect(formRefusal(error, ["email", "note"], offline)).toEqual({
      problems: { email: "Enter an address", note: "Too long" },
      problem: "Please correct the fields marked below.",
    });
  });

  it("shows the answer's own message when it names none of the form's fields", () => {
    const error = new ApiError(400, "validation_failed", "body.formToken: Stale");
    expect(formRefusal(error, ["email"], offline)).toEqual({
      problems: {},
      problem: "body.formToken: Stale",
    });
  });

  it("says the site did not answer when it did not, or answered with no error at all", () => {
    const lost = new ApiError(0, "network_error", "body.email: fetch failed");
    expect(formRefusal(lost, ["email"], offline)).toEqual({ problems: {}, problem: offline });
    expect(formRefusal(new TypeError("x"), ["email"], offline).problem).toBe(offline);
  });
});
