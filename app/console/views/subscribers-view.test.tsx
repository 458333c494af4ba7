import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { render, screen, within } from "@testing-library/react";
import { userEvent } from "@testing-library/user-event";
import { Toaster } from "sonner";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { SubscribersView } from "./subscribers-view.tsx";

/*
 * A reader who unsubscribed and then asks to be forgotten: the search finds
 * no subscriber (an unsubscription deletes the row), but the records of the
 * mails sent stay until they are forgotten (docs/privacy-requests.md). The
 * empty list says so, and offers to forget the address typed.
 */
const removals: unknown[] = [];
beforeEach(() => {
  removals.length = 0;
  vi.stubGlobal("fetch", async (url: string, init?: RequestInit) => {
    if (url.endsWith("/subscribers/remove")) {
      removals.push(JSON.parse(String(init?.body)));
      return new Response(null, { status: 204 });
    }
    return url.endsWith("/suppressions/search")
      ? Response.json({ suppressions: [], next: null })
      : Response.json({ counts: { confirmed: 0, pending: 0 }, subscribers: [] });
  });
});
afterEach(() => vi.unstubAllGlobals());

describe("SubscribersView", () => {
  it("offers to forget an address no subscriber has, typed whole", async () => {
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
        <Toaster />
      </QueryClientProvider>,
    );
    expect(
      await screen.findByText(
        "No subscribers yet: readers subscribe with the form at the foot of every page.",
      ),
    ).toBeTruthy();
    await user.type(
      screen.getByRole("searchbox", { name: "Search addresses" }),
      "left@example.com",
    );
    expect(
      await screen.findByText(
        /^No subscriber has this address\. A reader who unsubscribed/,
        undefined,
        {
          timeout: 10_000,
        },
      ),
    ).toHaveTextContent("the records of the mails sent to them stay until you forget the address");
    await user.click(screen.getByRole("button", { name: "Forget this address" }));
    const dialog = await screen.findByRole("alertdialog", { name: "Forget left@example.com?" });
    await user.click(within(dialog).getByRole("button", { name: "Forget" }));
    expect(await screen.findByText("Forgot left@example.com")).toBeTruthy();
    expect(removals).toEqual([{ email: "left@example.com" }]);
  });
});
