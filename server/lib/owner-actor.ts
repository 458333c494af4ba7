/**
 * Who takes one of the owner's actions (docs/architecture.md, "Owner
 * actions"): a console session, or the command line. The action writes its
 * line of the audit trail through its actor, which signs it with the session,
 * or with none for the command line.
 */
export type OwnerActor = { audit(action: string, object?: string): Promise<void> };
