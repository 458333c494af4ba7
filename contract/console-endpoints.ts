import type { z } from "zod";
import type { CommentResponse } from "./api.ts";
import type {
  addressRequestSchema,
  auditResponseSchema,
  BansResponse,
  BulkModerationRequest,
  banRequestSchema,
  bulkModerationResponseSchema,
  ConsoleCommentsResponse,
  commentSearchSchema,
  EditionPreviewResponse,
  EditionsResponse,
  HealthResponse,
  mailLinkRequestSchema,
  mailLinkResponseSchema,
  moderationQueueResponseSchema,
  OverviewResponse,
  OwnerTextRequest,
  passkeyOptionsResponseSchema,
  passkeyResponseSchema,
  passkeySignInRequestSchema,
  queuedResponseSchema,
  registerPasskeyRequestSchema,
  SignInMethodsResponse,
  SubscribersResponse,
  scheduledResponseSchema,
  scheduleRequestSchema,
  sessionsResponseSchema,
  signInRequestSchema,
  signInResponseSchema,
  subscriberSearchSchema,
  suppressionsResponseSchema,
  testSendRequestSchema,
  testSendResponseSchema,
  WhoAmIResponse,
} from "./console.ts";

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
    body: In<typeof signInRequestSchema>;
    response: Out<typeof signInResponseSchema>;
  };
  "POST /admin/sign-in/mail": {
    body: In<typeof mailLinkRequestSchema>;
    response: Out<typeof mailLinkResponseSchema>;
  };
  "GET /admin/sign-in/methods": { response: SignInMethodsResponse };
  "POST /admin/passkey-sign-in/options": { response: Out<typeof passkeyOptionsResponseSchema> };
  "POST /admin/passkey-sign-in": {
    body: In<typeof passkeySignInRequestSchema>;
    response: Out<typeof signInResponseSchema>;
  };
  "GET /admin/session": { response: WhoAmIResponse };
  "POST /admin/sign-out": { response: undefined };
  "GET /admin/sessions": { response: Out<typeof sessionsResponseSchema> };
  "DELETE /admin/sessions/:id": { params: { id: string }; response: undefined };
  "POST /admin/passkeys/options": { response: Out<typeof passkeyOptionsResponseSchema> };
  "POST /admin/passkeys": {
    body: In<typeof registerPasskeyRequestSchema>;
    response: Out<typeof passkeyResponseSchema>;
  };
  "DELETE /admin/passkeys/:id": { params: { id: string }; response: undefined };
  "GET /admin/overview": { response: OverviewResponse };
  "GET /admin/comments": {
    query?: In<typeof commentSearchSchema>;
    response: ConsoleCommentsResponse;
  };
  "GET /admin/comments/queue": { response: Out<typeof moderationQueueResponseSchema> };
  "POST /admin/comments/bulk": {
    body: BulkModerationRequest;
    response: Out<typeof bulkModerationResponseSchema>;
  };
  "POST /admin/comments/:id/approve": { params: { id: number }; response: undefined };
  "POST /admin/comments/:id/reject": { params: { id: number }; response: undefined };
  "POST /admin/comments/:id/spam": { params: { id: number }; response: undefined };
  "POST /admin/comments/:id/reply": {
    params: { id: number };
    body: OwnerTextRequest;
    response: CommentResponse;
  };
  "POST /admin/comments/:id/ban": {
    params: { id: number };
    body: In<typeof banRequestSchema>;
    response: undefined;
  };
  "GET /admin/bans": { response: BansResponse };
  "DELETE /admin/bans/:id": { params: { id: number }; response: undefined };
  "POST /admin/subscribers/search": {
    body: In<typeof subscriberSearchSchema>;
    response: SubscribersResponse;
  };
  "POST /admin/subscribers/remove": {
    body: In<typeof addressRequestSchema>;
    response: undefined;
  };
  "GET /admin/editions": { response: EditionsResponse };
  "GET /admin/editions/:slug": { params: Slug; response: EditionPreviewResponse };
  "POST /admin/editions/:slug/test": {
    params: Slug;
    body: In<typeof testSendRequestSchema>;
    response: Out<typeof testSendResponseSchema>;
  };
  "POST /admin/editions/:slug/send": { params: Slug; response: Out<typeof queuedResponseSchema> };
  "POST /admin/editions/:slug/schedule": {
    params: Slug;
    body: In<typeof scheduleRequestSchema>;
    response: Out<typeof scheduledResponseSchema>;
  };
  "DELETE /admin/editions/:slug/schedule": { params: Slug; response: undefined };
  "GET /admin/suppressions": { response: Out<typeof suppressionsResponseSchema> };
  "POST /admin/suppressions/lift": {
    body: In<typeof addressRequestSchema>;
    response: undefined;
  };
  "GET /admin/health": { response: HealthResponse };
  "GET /admin/audit": { response: Out<typeof auditResponseSchema> };
};
