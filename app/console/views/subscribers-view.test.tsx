import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { render, screen } from "@testing-library/react";
import { userEvent } from "@testing-library/user-event";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { SubscribersView } from "./subscribers-view.tsx";

/*
 * A reader who unsubscribed and then asks to be forgotten: the search finds
 * no subscriber (an unsubscription deletes the row), but the records of the
 * mails sent stay until the command line forgets them
 * (docs/privacy-requests.md). The empty list says so, rather than only that
 * nothing matched.
 */
beforeEach(() => {
  vi.stubGlobal("fetch", async (url: string) =>
    url.endsWith("/suppressions/search")
      ? Response.json({ suppressions: [], next: null })
      : Response.json({ counts: { confirmed: 0, pending: 0 }, subscribers: [] }),
  );
});
afterEach(() => vi.unstubAllGlobals());

describe("SubscribersView", () => {
  it("tells the owner how to forget an address no subscriber has", async () => {
    // happy-dom does not know the <search> element the screen's search sits
    // in (browsers do); React's warning of it is the one complaint let pass.
    vi.spyOn(console, "error").mockImplementation((...args: unknown[]) => {
      if (
        args[0] ===
          "The tag <%s> is unrecognized in this browser. If you meant to render a React component, start its name with an uppercase letter." &&
        args[1] === "search"
      )
        return;
      throw new Error(`console.error: ${args.map(String).join(" ")}`);
    });
    const user = userEvent.setup();
    render(
      <QueryClientProvider client={new QueryClient()}>
        <SubscribersView />
      </QueryClientProvider>,
    );
    expect(await screen.findByText("No addresses match.")).toBeTruthy();
    await user.type(
      screen.getByRole("searchbox", { name: "Search addresses" }),
      "left@example.com",
    );
    expect(
      await screen.findByText(/^No addresses match\. A reader who unsubscribed/, undefined, {
        timeout: 10_000,
      }),
    ).toHaveTextContent('"npm run admin -- subscribers remove ADDRESS" forgets the mails sent');
  });
});
