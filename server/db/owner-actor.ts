import type { Kysely } from "kysely";
import type { Database } from "./schema.ts";

/**
 * Who takes one of the owner's actions (docs/architecture.md, "Owner
 * actions"): a console session, the command line, or a notification mail's
 * link. The action writes its line of the audit trail through its actor,
 * which signs it with the session, or with none. `within` is the action's own
 * transaction, where it has one: the change and its line commit together, or
 * neither does.
 */
export type OwnerActor = {
  audit(action: string, object?: string, within?: Kysely<Database>): Promise<void>;
};
