import type {
  AddCommentRequest,
  AddReactionRequest,
  CommentResponse,
  CommentsQuery,
  CommentsResponse,
  FormTokenResponse,
  ReactionsResponse,
  WriteCommentRequest,
} from "./api.ts";
import type { AssistantEndpoints } from "./assistant.ts";
import type { BookingEndpoints } from "./bookings.ts";
import type { OwnerTextRequest } from "./console.ts";
import type { ConsoleEndpoints } from "./console-endpoints.ts";
import type { EnquiryEndpoints } from "./enquiries.ts";
import type { FediverseEndpoints } from "./fediverse.ts";
import type { ItemKind, ReactionType } from "./limits.ts";
import type {
  ConfirmRequest,
  ConfirmResponse,
  ConfirmStateResponse,
  SubscribeRequest,
  SubscribeResponse,
  UnsubscribeRequest,
  UnsubscribeResponse,
} from "./newsletter.ts";
import type { ReaderEndpoints } from "./readers.ts";
import type {
  DeleteYourDataRequest,
  DeleteYourDataResponse,
  YourDataResponse,
} from "./your-data.ts";

/**
 * Every call the reading pages and the console make to `/api`, by method and
 * path (`:name` marks a part of the path): its path's parts, its body and its answer, all
 * types of the schemas the server validates with. The browser's `api()`
 * (app/lib/api-client.ts) takes only these, so a body or an answer the
 * contract does not describe is a type error on the browser's side, and a
 * change to a schema reaches both sides at once.
 */
export type Endpoints = ConsoleEndpoints &
  EnquiryEndpoints &
  ReaderEndpoints &
  BookingEndpoints &
  FediverseEndpoints &
  AssistantEndpoints & {
    "GET /items/:kind/:id/reactions": {
      params: { kind: ItemKind; id: string };
      response: ReactionsResponse;
    };
    "POST /items/:kind/:id/reactions": {
      params: { kind: ItemKind; id: string };
      body: AddReactionRequest;
      response: ReactionsResponse;
    };
    "DELETE /items/:kind/:id/reactions/:type": {
      params: { kind: ItemKind; id: string; type: ReactionType };
      response: ReactionsResponse;
    };
    "GET /items/science/:id/comments": {
      params: { id: string };
      query?: CommentsQuery;
      response: CommentsResponse;
    };
    "POST /items/science/:id/comments": {
      params: { id: string };
      body: AddCommentRequest;
      response: CommentResponse;
    };
    "PATCH /comments/:id": {
      params: { id: number };
      body: WriteCommentRequest;
      response: CommentResponse;
    };
    "DELETE /comments/:id": { params: { id: number }; response: undefined };
    // The signed-in owner's edit and deletion of any comment, from the reading
    // page; audited by the console (docs/decisions/016-owner-voice.md).
    "PATCH /admin/comments/:id": {
      params: { id: number };
      body: OwnerTextRequest;
      response: CommentResponse;
    };
    "DELETE /admin/comments/:id": { params: { id: number }; response: undefined };
    "GET /comments/form-token": { response: FormTokenResponse };
    "GET /newsletter/form-token": { response: FormTokenResponse };
    "POST /subscribers": { body: SubscribeRequest; response: SubscribeResponse };
    "POST /subscribers/confirm": { body: ConfirmRequest; response: ConfirmResponse };
    "GET /subscribers/confirm": { query: ConfirmRequest; response: ConfirmStateResponse };
    "POST /unsubscribe": { body: UnsubscribeRequest; response: UnsubscribeResponse };
    "GET /your-data": { response: YourDataResponse };
    "POST /your-data/delete": { body: DeleteYourDataRequest; response: DeleteYourDataResponse };
  };

export type Route = keyof Endpoints;

/** What a call to `route` sends: its path's parts and its body, where it has them. */
export type CallOf<R extends Route> = Omit<Endpoints[R], "response">;
