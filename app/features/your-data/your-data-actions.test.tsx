import { render, screen, waitFor } from "@testing-library/react";
import { userEvent } from "@testing-library/user-event";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { YourDataActions } from "./your-data-actions.tsx";

/*
 * The page's live part after "Delete everything", with the keyboard: the
 * button that opened the dialog is disabled once nothing is left, so the
 * focus cannot go back to it; it goes to the sentence that says what went,
 * rather than to the page's body, where a screen reader starts over.
 */
beforeEach(() => {
  vi.stubGlobal("fetch", async (url: string) =>
    url === "/api/your-data"
      ? Response.json({
          site: "https://example.com",
          exportedAt: new Date().toISOString(),
          visitorCookie: true,
          comments: [
            {
              id: 1,
              postId: "soap",
              url: "https://example.com/science#soap",
              content: "Cold water needs more soap.",
              userName: "Rita",
              createdAt: "2026-12-05T10:00:00.000Z",
              updatedAt: "2026-12-05T10:00:00.000Z",
              parentId: null,
            },
          ],
          reactions: [],
          replyAddresses: [],
          bookings: [],
        })
      : Response.json({ deleted: { comments: 1, reactions: 0, replyAddresses: 0, bookings: 0 } }),
  );
});
afterEach(() => vi.unstubAllGlobals());

describe("YourDataActions", () => {
  it("leaves the keyboard's focus on what was deleted, not on the page's body", async () => {
    const user = userEvent.setup();
    render(<YourDataActions />);
    const status = screen.getByRole("status");
    await waitFor(() => expect(status).toHaveTextContent("This browser owns 1 comment"));
    const open = screen.getByRole("button", {
      name: "Delete all my comments, reactions and booked calls",
    });
    open.focus();
    await user.keyboard("{Enter}");
    const confirm = await screen.findByRole("button", { name: "Delete everything" });
    confirm.focus();
    await user.keyboard("{Enter}");
    await waitFor(() => expect(status).toHaveTextContent("Deleted 1 comment and 0 reactions."));
    await waitFor(() => expect(screen.queryByRole("alertdialog")).toBeNull());
    expect(open).toBeDisabled();
    await waitFor(() => expect(document.activeElement).toBe(status));
  });
});
