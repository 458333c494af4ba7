/*
 * Type checks only (`tsc --noEmit`, part of `npm test`): the browser cannot
 * send or read what the contract does not describe. Each `@ts-expect-error`
 * fails the check if the line below it ever compiles. Nothing here runs.
 */
import { api } from "./api-client.ts";

export async function contractHoldsBothSides() {
  await api("POST /items/:kind/:id/reactions", {
    params: { kind: "science", id: "x" },
    // @ts-expect-error: `name` is not a field of AddReactionRequest (the server's schema is strict)
    body: { type: "like", name: "A" },
  });
  await api("DELETE /items/:kind/:id/reactions/:type", {
    // @ts-expect-error: "wow" is not a ReactionType
    params: { kind: "science", id: "x", type: "wow" },
  });
  await api("GET /items/:kind/:id/reactions", {
    // @ts-expect-error: "technical" items have no reactions
    params: { kind: "technical", id: "x" },
  });
  // @ts-expect-error: not an endpoint of the contract
  await api("GET /comments");
  // @ts-expect-error: the body is required
  await api("POST /subscribers");
  const { comment } = await api("PATCH /comments/:id", {
    params: { id: 1 },
    body: { content: "Edited", userName: "Asha" },
  });
  // @ts-expect-error: a comment has no `email`
  void comment.email;
}
