import { type FormEvent, useState } from "react";
import type { ConsoleFollower, ConsoleMention } from "../../../contract/fediverse.ts";
import { ConfirmButton } from "../confirm-button.tsx";
import { act, useConsoleData } from "../console-api.ts";
import { List, Pager, usePages } from "../data.tsx";
import { useRefusal } from "../refusal.tsx";
import { ActButton, buttonClass, Input, Loading, Panel, When } from "../ui.tsx";

const hostOf = (address: string) => {
  try {
    return new URL(address).host;
  } catch {
    return address;
  }
};

const said: Record<ConsoleMention["kind"], string> = {
  reply: "a reply",
  like: "a like",
  repost: "a repost",
  mention: "a mention",
};

/**
 * The site's audience on the open web (docs/fediverse.md): who follows it on
 * the Fediverse, each with a block of the account or of its whole server;
 * the blocks, with Unblock; and the webmentions other sites sent, to approve
 * or delete.
 */
export function FollowersView() {
  const pages = usePages();
  const followers = useConsoleData("GET /admin/followers", {
    query: pages.after ? { after: pages.after } : {},
  });
  const mentions = useConsoleData("GET /admin/webmentions");
  const [target, setTarget] = useState("");
  const refusal = useRefusal(["target"]);

  // Nothing written is the server's to refuse too, in its words at the field.
  function blockGiven(event: FormEvent) {
    event.preventDefault();
    const given = target.trim();
    refusal.clear();
    void act(
      ["POST /admin/fediverse/block", { body: { target: given } }],
      `Blocked ${given}`,
      () => {
        setTarget("");
        return followers.reload();
      },
      refusal.refused,
    );
  }

  const follower = (one: ConsoleFollower) => (
    <li key={one.actorId} className="rounded-xl border border-line p-4">
      <article aria-label={one.handle} className="space-y-2">
        <p className="text-sm wrap-anywhere text-slate-200">
          <span className="font-semibold text-slate-100">{one.name ?? one.handle}</span>{" "}
          <a
            href={one.actorId}
            rel="noopener noreferrer"
            className="text-slate-400 underline underline-offset-2"
          >
            {one.handle}
          </a>
        </p>
        <p className="text-xs text-slate-400">
          Follows since <When iso={one.followedAt} />
        </p>
        <div className="flex flex-wrap gap-2">
          <ConfirmButton
            label="Block"
            ariaLabel={`Block ${one.handle}`}
            title={`Block ${one.handle}?`}
            description="It stops following the site, and whatever it sends is dropped from now on. Its server is not told."
            confirmLabel="Block the account"
            call={["POST /admin/fediverse/block", { body: { target: one.actorId } }]}
            done={`Blocked ${one.actorId}`}
            after={followers.reload}
          />
          <ConfirmButton
            label="Block server"
            // Its name holds the words it shows (axe: label-content-name-mismatch).
            ariaLabel={`Block server ${hostOf(one.actorId)}`}
            title={`Block everyone on ${hostOf(one.actorId)}?`}
            description="Every account on that server stops following the site, and whatever the server sends is dropped from now on."
            confirmLabel="Block the server"
            call={["POST /admin/fediverse/block", { body: { target: hostOf(one.actorId) } }]}
            done={`Blocked ${hostOf(one.actorId)}`}
            after={followers.reload}
          />
          <ConfirmButton
            label="Erase"
            ariaLabel={`Erase ${one.handle}`}
            title={`Erase ${one.handle}?`}
            description="Everything the site holds of this account goes: its follow, comments and replies (with their picture), likes, boosts and webmentions. It is blocked so that nothing it sends comes back, until you unblock it."
            confirmLabel="Erase and block"
            call={["POST /admin/fediverse/erase", { body: { actor: one.actorId } }]}
            done={`Erased and blocked ${one.handle}`}
            after={followers.reload}
          />
        </div>
      </article>
    </li>
  );

  return (
    <div className="space-y-6">
      <Loading loaded={followers.loaded}>
        {({ followers: list, next, total, blocks }) => (
          <>
            <Panel title={`Following the site (${total})`}>
              <List
                items={list}
                label="Followers, newest first"
                empty={
                  pages.number > 1
                    ? "No more followers: they left meanwhile."
                    : "Nobody follows the site on the Fediverse yet. The About page tells readers how."
                }
              >
                {follower}
              </List>
              <Pager label="Pages of followers" pages={pages} next={next} />
            </Panel>
            <Panel title="Blocked">
              <form onSubmit={blockGiven} className="mb-4 flex flex-wrap items-end gap-2">
                <Input
                  label="Account or server to block"
                  value={target}
                  onChange={setTarget}
                  maxLength={2000}
                  aria-describedby="block-target-hint"
                  {...refusal.field("target")}
                />
                <button type="submit" className={buttonClass}>
                  Block
                </button>
                {refusal.problem}
                {/* Said under the field, whole at any width, where a placeholder was cut off on a phone. */}
                <p id="block-target-hint" className="w-full text-xs wrap-anywhere text-slate-400">
                  An account's address, as https://mastodon.social/users/someone, or a server's
                  name, as mastodon.social.
                </p>
              </form>
              <List
                items={blocks}
                label="Blocked accounts and servers"
                empty="Nothing is blocked."
                className="space-y-2"
              >
                {(one) => (
                  <li key={one.target} className="flex flex-wrap items-center gap-3 text-sm">
                    <span className="break-all text-slate-200">{one.target}</span>
                    <span className="text-xs text-slate-400">
                      since <When iso={one.blockedAt} />
                    </span>
                    <ActButton
                      label="Unblock"
                      name={`Unblock ${one.target}`}
                      call={["POST /admin/fediverse/unblock", { body: { target: one.target } }]}
                      done={`Unblocked ${one.target}`}
                      after={followers.reload}
                    />
                  </li>
                )}
              </List>
            </Panel>
          </>
        )}
      </Loading>
      <Loading loaded={mentions.loaded}>
        {({ mentions: list }) => (
          <Panel title="Webmentions">
            <List
              items={list}
              label="Webmentions, newest first"
              empty="No other site has mentioned the site's pages yet."
            >
              {(one) => (
                <li key={one.id} className="rounded-xl border border-line p-4">
                  <article aria-label={`Webmention ${one.id}`} className="space-y-2 text-sm">
                    <p className="wrap-anywhere text-slate-200">
                      {said[one.kind]} of <a href={one.path}>{one.path}</a> from{" "}
                      <a
                        href={one.source}
                        rel="nofollow noopener noreferrer"
                        className="break-all underline underline-offset-2"
                      >
                        {one.source}
                      </a>
                      {one.authorName ? ` by ${one.authorName}` : ""}
                    </p>
                    {one.content ? (
                      <blockquote className="border-l-2 border-line pl-3 break-words text-slate-300">
                        {one.content}
                      </blockquote>
                    ) : null}
                    <p className="text-xs text-slate-400">
                      {one.status === "published"
                        ? "Shown under the item"
                        : one.status === "pending"
                          ? "Verified, waiting for you"
                          : "Not checked yet"}{" "}
                      · received <When iso={one.receivedAt} />
                    </p>
                    <div className="flex flex-wrap gap-2">
                      {one.status === "pending" ? (
                        <ActButton
                          label="Approve"
                          name={`Approve webmention ${one.id}`}
                          call={["POST /admin/webmentions/:id/approve", { params: { id: one.id } }]}
                          done="The mention shows under its item"
                          after={mentions.reload}
                        />
                      ) : null}
                      <ActButton
                        label="Delete"
                        name={`Delete webmention ${one.id}`}
                        call={["DELETE /admin/webmentions/:id", { params: { id: one.id } }]}
                        done="The mention is deleted"
                        after={mentions.reload}
                      />
                    </div>
                  </article>
                </li>
              )}
            </List>
          </Panel>
        )}
      </Loading>
    </div>
  );
}
