import type { OwnerActor } from "../db/owner-actor.ts";
import type { OwnerRepository } from "./owner-repository.ts";

/**
 * Ends one console session, or every one, from the console's sessions or the
 * command line (docs/architecture.md, "Owner actions"), with one line of the
 * audit trail; how many ended, or "not_found" when the session named is not open.
 */
export async function revokeSessions(
  owner: OwnerRepository,
  by: OwnerActor,
  which: { id: string } | "all",
): Promise<number | "not_found"> {
  const ended = await by.act(
    (trx) => owner.revoke(which, trx),
    (ended) =>
      (which === "all" || ended > 0) && ["session revoke", which === "all" ? "all" : which.id],
  );
  return which !== "all" && ended === 0 ? "not_found" : ended;
}

/**
 * Removes a passkey, from the console's passkeys or the command line, and ends
 * the sessions it opened (OwnerRepository.removePasskey), with one line of the
 * audit trail; false when no passkey has the id.
 */
export function removePasskey(
  owner: OwnerRepository,
  by: OwnerActor,
  id: string,
): Promise<boolean> {
  return by.act(
    (trx) => owner.removePasskey(id, trx),
    (removed) => removed && ["passkey remove", id],
  );
}
