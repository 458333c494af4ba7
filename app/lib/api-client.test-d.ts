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

export async function consoleCallsAreInTheContractToo() {
  await api("POST /admin/comments/:id/ban", {
    params: { id: 1 },
    // @ts-expect-error: a ban lasts whole days, given as a number
    body: { days: "30" },
  });
  // @ts-expect-error: the console lists subscribers; it has no single-subscriber read
  await api("GET /admin/subscribers/:email", { params: { email: "a@example.com" } });
  // @ts-expect-error: an address searched for is never in a URL (request logs keep URLs)
  await api("GET /admin/subscribers", { query: { q: "reader" } });
  const { counts } = await api("POST /admin/subscribers/search", { body: { q: "reader" } });
  // @ts-expect-error: subscribers are counted as pending or confirmed, nothing else
  void counts.unsubscribed;
  const { queued } = await api("POST /admin/editions/:slug/send", { params: { slug: "nov" } });
  // @ts-expect-error: how many were queued is a number
  void queued.length;
}
