import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { render, screen } from "@testing-library/react";
import { userEvent } from "@testing-library/user-event";
import { afterEach, describe, expect, it, vi } from "vitest";
import { NewsletterView } from "./newsletter-view.tsx";

/*
 * The owner's first edition, to their first subscriber: the confirmation
 * before Send says how many it reaches in plain words, one address or many.
 */
const edition = {
  slug: "04-first-week",
  subject: "A first article",
  problem: null,
  warnings: [],
  progress: null,
  scheduled: null,
};
const serve = (confirmedSubscribers: number, suppressedSubscribers: number) =>
  vi.stubGlobal("fetch", async () =>
    Response.json({ editions: [edition], confirmedSubscribers, suppressedSubscribers }),
  );
afterEach(() => vi.unstubAllGlobals());

async function asked() {
  const user = userEvent.setup();
  render(
    <QueryClientProvider client={new QueryClient()}>
      <NewsletterView />
    </QueryClientProvider>,
  );
  await user.click(await screen.findByRole("button", { name: "Send" }));
  return (await screen.findByRole("alertdialog", { name: 'Send "A first article"?' })).textContent;
}

describe("NewsletterView's Send", () => {
  it("says how many addresses the edition reaches, one in the singular", async () => {
    serve(1, 0);
    expect(await asked()).toContain(
      "It goes to every confirmed subscriber who has not had it (1 address now), at the configured pace.",
    );
  });

  it("counts the suppressed addresses out", async () => {
    serve(5, 1);
    expect(await asked()).toContain(
      "It goes to every confirmed subscriber who has not had it (4 addresses now), not to 1 suppressed address,",
    );
  });
});
