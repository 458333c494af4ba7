import { describe, expect, it } from "vitest";
import { ApiError, fieldProblems, formRefusal } from "./api-client.ts";

const offline = "The site did not answer.";

/** A schema's refusal as the API answers it: the message, and the issues it is made of. */
function refused(...issues: [path: string, message: string][]) {
  const message = issues.map(([path, words]) => `${path}: ${words}`).join("; ");
  return new ApiError(400, "validation_failed", message, {
    code: "validation_failed",
    message,
    issues: issues.map(([path, words]) => ({ path, message: words })),
  });
}

describe("a form's refusal", () => {
  it("puts each named field's message beside it, and asks above the form to correct them", () => {
    const error = refused(
      ["body.email", "Enter an address"],
      ["body.note", "Too long"],
      ["body.formToken", "Stale"],
    );
    expect(formRefusal(error, ["email", "note"], offline)).toEqual({
      problems: { email: "Enter an address", note: "Too long" },
      problem: "Please correct the fields marked below.",
    });
  });

  it("shows the answer's own message when it names none of the form's fields", () => {
    const error = refused(["body.formToken", "Stale"]);
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

describe("a refusal's problems by field", () => {
  it("reads the fields from the answer's issues, and says the rest in words alone", () => {
    const error = new ApiError(400, "validation_failed", "body.datesOff.1: Write dates; x", {
      issues: [
        { path: "body.datesOff.1", message: "Write dates as YYYY-MM-DD." },
        { path: "body.weekly.monday", message: "Write times as HH:MM." },
      ],
    });
    expect(fieldProblems(error, ["datesOff", "meetingUrl"])).toEqual({
      problems: { datesOff: "Write dates as YYYY-MM-DD." },
      rest: "Write times as HH:MM.",
    });
  });

  it("finds a field named deeper in the path, as a day of the weekly hours", () => {
    const error = new ApiError(400, "validation_failed", "x", {
      issues: [
        { path: "body.weekly.tue", message: "A day has at most 6 stretches." },
        { path: "body.weekly.fri.0", message: "A stretch of hours must end after it starts." },
      ],
    });
    expect(fieldProblems(error, ["mon", "tue", "fri", "datesOff"])).toEqual({
      problems: {
        tue: "A day has at most 6 stretches.",
        fri: "A stretch of hours must end after it starts.",
      },
      rest: null,
    });
  });

  it("keeps a message that names no field whole", () => {
    const error = new ApiError(409, "conflict", "That is blocked already; try another.");
    expect(fieldProblems(error, ["target"])).toEqual({
      problems: {},
      rest: "That is blocked already; try another.",
    });
  });
});
