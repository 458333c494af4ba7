import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useEffect, useRef } from "react";
import type {
  AddCommentRequest,
  Comment,
  CommentFormTokenResponse,
  CommentResponse,
  CommentsResponse,
} from "../../../contract/api.ts";
import { api } from "../../lib/api-client.ts";
import { itemKeys } from "../engagement/live-item.ts";

export function useComments(postId: string) {
  return useQuery({
    queryKey: itemKeys.comments(postId),
    queryFn: () =>
      api<CommentsResponse>("GET", `/items/science/${encodeURIComponent(postId)}/comments`),
  });
}

/** Add, edit and delete; the cache follows the server's answer, a failure changes nothing. */
export function useCommentActions(postId: string, onError: (error: unknown) => void) {
  const queryClient = useQueryClient();
  const key = itemKeys.comments(postId);
  const update = (change: (comments: Comment[]) => Comment[]) =>
    queryClient.setQueryData<CommentsResponse>(key, (data) =>
      data ? { comments: change(data.comments) } : data,
    );
  const fail = (what: string) => (error: unknown) => {
    console.error(`${what} failed:`, error);
    onError(error);
  };

  const add = useMutation({
    mutationFn: (body: AddCommentRequest) =>
      api<CommentResponse>("POST", `/items/science/${encodeURIComponent(postId)}/comments`, body),
    // The live event may have brought it first, without knowing it is ours.
    onSuccess: ({ comment }) =>
      update((comments) =>
        comments.some((c) => c.id === comment.id)
          ? comments.map((c) => (c.id === comment.id ? comment : c))
          : [...comments, comment],
      ),
    onError: fail("Posting a comment"),
  });

  const edit = useMutation({
    mutationFn: ({ id, ...body }: { id: number; content: string; userName: string }) =>
      api<CommentResponse>("PATCH", `/comments/${id}`, body),
    onSuccess: ({ comment }) =>
      update((comments) => comments.map((c) => (c.id === comment.id ? comment : c))),
    onError: fail("Editing a comment"),
  });

  const remove = useMutation({
    mutationFn: (id: number) => api<void>("DELETE", `/comments/${id}`),
    onMutate: async (id) => {
      await queryClient.cancelQueries({ queryKey: key });
      const previous = queryClient.getQueryData<CommentsResponse>(key);
      update((comments) => comments.filter((c) => c.id !== id));
      return { previous };
    },
    onError: (error, _id, context) => {
      if (context?.previous) queryClient.setQueryData(key, context.previous);
      fail("Deleting a comment")(error);
    },
  });

  return { add, edit, remove };
}

/**
 * The comment form's signed time (docs/product.md, "Spam and moderation"),
 * fetched when the form appears. `ready()` resolves with it once the server's
 * minimum time has passed: a reader quicker than that waits out the rest
 * instead of being refused. `renew()` starts again for the next comment.
 */
export function useFormToken(active: boolean) {
  const token = useRef<Promise<string> | null>(null);

  function start(): Promise<string> {
    token.current ??= api<CommentFormTokenResponse>("GET", "/comments/form-token").then(
      async ({ formToken, minimumMs }) => {
        // Counted from the answer, which the server signed before sending it.
        if (minimumMs > 0) await new Promise((resolve) => setTimeout(resolve, minimumMs + 100));
        return formToken;
      },
      (error) => {
        token.current = null;
        throw error;
      },
    );
    return token.current;
  }

  useEffect(() => {
    // A failure here is retried when the comment is sent.
    if (active) start().catch(() => {});
  });

  return {
    ready: start,
    renew() {
      token.current = null;
      start().catch(() => {});
    },
  };
}
