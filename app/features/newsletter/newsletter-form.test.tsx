import { act, render, screen } from "@testing-library/react";
import { userEvent } from "@testing-library/user-event";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { NewsletterForm } from "./newsletter-form.tsx";

let requests: { url: string; body: unknown }[];
let answer: () => Promise<Response>;

beforeEach(() => {
  requests = [];
  answer = async () => Response.json({ subscribed: true }, { status: 201 });
  vi.stubGlobal("fetch", async (url: string, init: RequestInit) => {
    if (url === "/api/newsletter/form-token")
      return Response.json({ formToken: "signed-time", minimumMs: 0 });
    requests.push({ url, body: JSON.parse(String(init.body)) });
    return answer();
  });
});
afterEach(() => vi.unstubAllGlobals());

const input = () => screen.getByRole("textbox", { name: "Email address" });

describe("NewsletterForm", () => {
  it("keeps the button disabled while the field is empty or blank", async () => {
    const user = userEvent.setup();
    render(<NewsletterForm />);
    expect(screen.getByRole("button", { name: "Subscribe" })).toBeDisabled();
    await user.type(input(), "   ");
    expect(screen.getByRole("button", { name: "Subscribe" })).toBeDisabled();
    expect(input()).toBeRequired();
    expect(input()).toHaveAttribute("type", "email");
  });

  it("sends the trimmed address, thanks the reader for 3 s, then returns to idle", async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    const user = userEvent.setup({ advanceTimers: vi.advanceTimersByTime });
    let release: () => void = () => {};
    answer = () =>
      new Promise((resolve) => {
        release = () => resolve(Response.json({ subscribed: true }, { status: 201 }));
      });
    render(<NewsletterForm />);
    await user.type(input(), "  reader@example.com ");
    await user.click(screen.getByRole("button", { name: "Subscribe" }));
    expect(screen.getByRole("button", { name: "Subscribing..." })).toBeDisabled();
    // The form waits out its minimum time to fill before it sends.
    await act(async () => vi.advanceTimersByTime(2200));
    await vi.waitFor(() => expect(requests).toHaveLength(1));
    await act(async () => release());
    expect(await screen.findByText(/Thank you/)).toBeVisible();
    expect(requests).toEqual([
      {
        url: "/api/subscribers",
        body: { email: "reader@example.com", formToken: "signed-time", website: "" },
      },
    ]);
    expect(screen.getByRole("status")).toHaveTextContent(/Check your inbox/);
    // The button the focus was on is gone: the thank-you takes it, then the field.
    expect(screen.getByRole("status")).toHaveFocus();
    await act(async () => vi.advanceTimersByTime(3000));
    expect(screen.queryByText(/Thank you/)).not.toBeInTheDocument();
    expect(input()).toHaveValue("");
    expect(input()).toHaveFocus();
    vi.useRealTimers();
  });

  it("turns red on any error, logs it, and recovers when the address is edited", async () => {
    const user = userEvent.setup();
    const logged = vi.spyOn(console, "error").mockImplementation(() => {});
    answer = async () =>
      Response.json(
        { error: { code: "internal_error", message: "Internal server error." } },
        { status: 500 },
      );
    render(<NewsletterForm />);
    await user.type(input(), "reader@example.com");
    await user.click(screen.getByRole("button", { name: "Subscribe" }));
    // After the form's 2 s minimum time to fill.
    const failed = await screen.findByRole(
      "button",
      { name: "Not subscribed: an error occurred" },
      { timeout: 5000 },
    );
    expect(failed).toHaveClass("btn-error");
    expect(logged).toHaveBeenCalledOnce();
    // Said aloud, and the field the reader is to correct holds the focus, marked.
    expect(screen.getByRole("alert")).toHaveTextContent("Not subscribed: an error occurred");
    expect(input()).toHaveFocus();
    expect(input()).toBeInvalid();
    await user.type(input(), "x");
    expect(screen.getByRole("button", { name: "Subscribe" })).not.toHaveClass("btn-error");
    expect(screen.queryByRole("alert")).toBeNull();
  });

  it("says why the server refused the address, in its own words, under the red button", async () => {
    const user = userEvent.setup();
    vi.spyOn(console, "error").mockImplementation(() => {});
    const refusals = [
      [
        400,
        {
          code: "validation_failed",
          message: "body.email: Enter a valid email address.",
          issues: [{ path: "body.email", message: "Enter a valid email address." }],
        },
        "Enter a valid email address.",
      ],
      [
        429,
        {
          code: "rate_limited",
          message:
            "Too many confirmation mails were requested from your connection; try again in an hour.",
        },
        "Too many confirmation mails were requested from your connection; try again in an hour.",
      ],
    ] as const;
    render(<NewsletterForm />);
    for (const [status, error, said] of refusals) {
      answer = async () => Response.json({ error }, { status });
      await user.clear(input());
      await user.type(input(), "reader@example");
      await user.click(screen.getByRole("button", { name: "Subscribe" }));
      expect(await screen.findByRole("alert", {}, { timeout: 5000 }), error.code).toHaveTextContent(
        said,
      );
      expect(screen.getByText(said)).toBeVisible();
      expect(
        screen.getByRole("button", { name: "Not subscribed: an error occurred" }),
      ).toBeVisible();
    }
  });
});
