import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { render, screen } from "@testing-library/react";
import { userEvent } from "@testing-library/user-event";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { EditionFile } from "../../../contract/console.ts";
import { NewsletterView } from "./newsletter-view.tsx";

/*
 * The owner's first edition, to their first subscriber: the confirmation
 * before Send says how many it reaches in plain words, one address or many.
 */
const edition: EditionFile = {
  slug: "04-first-week",
  subject: "A first article",
  problem: null,
  warnings: [],
  progress: null,
  scheduled: null,
};
const serve = (confirmedSubscribers: number, suppressedSubscribers: number, listed = edition) =>
  vi.stubGlobal("fetch", async () =>
    Response.json({ editions: [listed], confirmedSubscribers, suppressedSubscribers }),
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
      "It goes to every confirmed subscriber (1 address now), at the configured pace.",
    );
  });

  it("says that an edition sent before goes only to those who have not had it", async () => {
    const progress = {
      slug: edition.slug,
      subject: "A first article",
      createdAt: "2026-12-07T16:10:00.000Z",
      queued: 0,
      sent: 4,
      failed: 0,
      cancelled: 0,
      bounced: 0,
      complaints: 0,
      unsubscribes: 0,
      links: [],
    };
    serve(2, 0, { ...edition, progress });
    const said = await asked();
    expect(said).toContain(
      "It was sent before: it goes only to the confirmed subscribers who have not had it yet, of 2 addresses now, at the configured pace.",
    );
    expect(said).not.toContain("every confirmed subscriber");
  });

  it("counts the suppressed addresses out", async () => {
    serve(5, 1);
    expect(await asked()).toContain(
      "It goes to every confirmed subscriber (4 addresses now), not to 1 suppressed address,",
    );
  });
});
