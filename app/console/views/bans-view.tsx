import type { ConsoleBan } from "../../../contract/console.ts";
import { useConsoleData } from "../console-api.ts";
import { List } from "../data.tsx";
import { ActButton, Loading, When } from "../ui.tsx";

function whom(ban: ConsoleBan): string {
  return ban.comment ? ban.comment.userName : `the writer of a deleted comment`;
}

/**
 * The bans in force, each with Unban (docs/decisions/010-moderation-and-spam.md):
 * whom it names (by the comment that led to it), since when, until when, and
 * whether it covers the writer's address as well as their browser.
 */
export function BansView() {
  const { loaded, reload } = useConsoleData("GET /admin/bans");
  return (
    <Loading loaded={loaded}>
      {({ bans }) => (
        <List
          items={bans}
          label="Bans in force, oldest first"
          empty="No bans in force. Ban the writer of a comment from the Comments screen."
        >
          {(ban) => (
            <li key={ban.id} className="rounded-xl border border-line bg-panel p-4">
              <article aria-label={`Ban ${ban.id}`} className="space-y-2">
                <p className="text-sm wrap-anywhere text-slate-200">
                  <span className="font-semibold text-slate-100">{whom(ban)}</span>
                  {ban.comment ? (
                    <span className="text-slate-400">
                      {" "}
                      for comment #{ban.comment.id} on {ban.comment.postTitle}
                    </span>
                  ) : null}
                </p>
                {ban.comment ? (
                  <blockquote className="border-l-2 border-line pl-3 text-sm break-words text-slate-300">
                    {ban.comment.excerpt}
                  </blockquote>
                ) : null}
                <p className="text-xs text-slate-400">
                  Since <When iso={ban.createdAt} />,{" "}
                  {ban.expiresAt ? (
                    <>
                      until <When iso={ban.expiresAt} />
                    </>
                  ) : (
                    "until lifted"
                  )}
                  ; {ban.coversAddress ? "their browser and address" : "their browser only"}
                </p>
                <ActButton
                  label="Unban"
                  name={`Unban ${whom(ban)} (ban ${ban.id})`}
                  call={["DELETE /admin/bans/:id", { params: { id: ban.id } }]}
                  done={`The ban on ${whom(ban)} is lifted`}
                  after={reload}
                />
              </article>
            </li>
          )}
        </List>
      )}
    </Loading>
  );
}
