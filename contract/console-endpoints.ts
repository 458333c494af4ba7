import type { z } from "zod";
import type { CommentResponse } from "./api.ts";
import type * as admin from "./console.ts";
import type {
  suppressionLiftSchema,
  suppressionSearchSchema,
  suppressionsResponseSchema,
} from "./list-pages.ts";

/**
 * Every call of the console to `/api/admin`, in the form of the reading
 * pages' `Endpoints` (contract/endpoints.ts), which lists these too: the
 * console's pages call them through the same typed `api()`.
 */
type In<S extends z.ZodType> = z.input<S>;
type Out<S extends z.ZodType> = z.infer<S>;
type Slug = { slug: string };

export type ConsoleEndpoints = {
  "POST /admin/sign-in": {
    body: In<typeof admin.signInRequestSchema>;
    response: Out<typeof admin.signInResponseSchema>;
  };
  "POST /admin/sign-in/mail": {
    body: In<typeof admin.mailLinkRequestSchema>;
    response: Out<typeof admin.mailLinkResponseSchema>;
  };
  "GET /admin/sign-in/methods": { response: admin.SignInMethodsResponse };
  "POST /admin/passkey-sign-in/options": {
    response: Out<typeof admin.passkeyOptionsResponseSchema>;
  };
  "POST /admin/passkey-sign-in": {
    body: In<typeof admin.passkeySignInRequestSchema>;
    response: Out<typeof admin.signInResponseSchema>;
  };
  "GET /admin/session": { response: admin.WhoAmIResponse };
  "POST /admin/sign-out": { response: undefined };
  "GET /admin/sessions": { response: Out<typeof admin.sessionsResponseSchema> };
  "DELETE /admin/sessions/:id": { params: { id: string }; response: undefined };
  "POST /admin/passkeys/options": { response: Out<typeof admin.passkeyOptionsResponseSchema> };
  "POST /admin/passkeys": {
    body: In<typeof admin.registerPasskeyRequestSchema>;
    response: Out<typeof admin.passkeyResponseSchema>;
  };
  "DELETE /admin/passkeys/:id": { params: { id: string }; response: undefined };
  "GET /admin/overview": { response: admin.OverviewResponse };
  "GET /admin/comments": {
    query?: In<typeof admin.commentSearchSchema>;
    response: admin.ConsoleCommentsResponse;
  };
  "GET /admin/comments/queue": { response: Out<typeof admin.moderationQueueResponseSchema> };
  "POST /admin/comments/bulk": {
    body: admin.BulkModerationRequest;
    response: Out<typeof admin.bulkModerationResponseSchema>;
  };
  "POST /admin/comments/:id/approve": { params: { id: number }; response: undefined };
  "POST /admin/comments/:id/reject": { params: { id: number }; response: undefined };
  "POST /admin/comments/:id/spam": { params: { id: number }; response: undefined };
  "POST /admin/comments/:id/reply": {
    params: { id: number };
    body: admin.OwnerTextRequest;
    response: CommentResponse;
  };
  "POST /admin/comments/:id/ban": {
    params: { id: number };
    body: In<typeof admin.banRequestSchema>;
    response: undefined;
  };
  "GET /admin/bans": { response: admin.BansResponse };
  "DELETE /admin/bans/:id": { params: { id: number }; response: undefined };
  "POST /admin/subscribers/search": {
    body: In<typeof admin.subscriberSearchSchema>;
    response: admin.SubscribersResponse;
  };
  "POST /admin/subscribers/remove": {
    body: In<typeof admin.addressRequestSchema>;
    response: undefined;
  };
  "GET /admin/editions": { response: admin.EditionsResponse };
  "GET /admin/editions/:slug": { params: Slug; response: admin.EditionPreviewResponse };
  "POST /admin/editions/:slug/test": {
    params: Slug;
    body: In<typeof admin.testSendRequestSchema>;
    response: Out<typeof admin.testSendResponseSchema>;
  };
  "POST /admin/editions/:slug/send": {
    params: Slug;
    response: Out<typeof admin.queuedResponseSchema>;
  };
  "POST /admin/editions/:slug/schedule": {
    params: Slug;
    body: In<typeof admin.scheduleRequestSchema>;
    response: Out<typeof admin.scheduledResponseSchema>;
  };
  "DELETE /admin/editions/:slug/schedule": { params: Slug; response: undefined };
  "POST /admin/suppressions/search": {
    body: In<typeof suppressionSearchSchema>;
    response: Out<typeof suppressionsResponseSchema>;
  };
  "POST /admin/suppressions/lift": {
    body: In<typeof suppressionLiftSchema>;
    response: undefined;
  };
  "GET /admin/health": { response: admin.HealthResponse };
  "GET /admin/audit": { response: Out<typeof admin.auditResponseSchema> };
};

/**
 * A suppression's address as the console and the command line show it. Here, in a module
 * the console loads without zod, whose schemas its CSP (no eval) must not meet.
 */
export const shownAddress = ({ email, domain }: { email: string | null; domain: string }) =>
  email ?? `an address at ${domain} (no longer kept)`;
