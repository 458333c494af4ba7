import { type QueryClient, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useEffect } from "react";
import type { OwnerOverlay } from "../../../contract/api.ts";
import { ownerNameCookie } from "../../../contract/site-config.ts";
import { encodeCommentCursor } from "../../../contract/threads.ts";
import { api } from "../../lib/api-client.ts";
import {
  type Fold,
  firstLoaded,
  type LoadedComments,
  sameFold,
  withChanged,
  withDeleted,
  withPage,
} from "../../lib/comment-list.ts";
import { itemKeys } from "../../lib/query-keys.ts";
import { readAgain } from "../../lib/read-again.ts";

/** The discussion as it opens, or the next stretch of its folded middle. */
const fetchPage = (postId: string, fold: Fold | null) =>
  api("GET /items/science/:id/comments", {
    params: { id: postId },
    ...(fold
      ? {
          query: {
            after: encodeCommentCursor(fold.after),
            ...(fold.before ? { before: encodeCommentCursor(fold.before) } : {}),
          },
        }
      : {}),
  });

/**
 * A post's comments: its beginning and its latest, and what the reader
 * unfolds of the middle (docs/decisions/032-long-discussions-open-at-both-ends.md).
 * A reload (the stream's first `ready`, a `resync`) makes as many reads as
 * the reader had made, so what "Show more comments" unfolded stays unfolded.
 */
const commentsQuery = (queryClient: QueryClient, postId: string) => {
  const key = itemKeys.comments(postId);
  return {
    queryKey: key,
    queryFn: async () => {
      const pages = queryClient.getQueryData<LoadedComments>(key)?.pages ?? 1;
      let data = firstLoaded(await fetchPage(postId, null));
      while (data.pages < pages && data.fold)
        data = withPage(data, await fetchPage(postId, data.fold));
      return data;
    },
  };
};

export function useComments(postId: string) {
  return useQuery(commentsQuery(useQueryClient(), postId));
}

/**
 * "Show more comments": the next stretch of the fold, added to the list
 * unless a reload replaced the fold meanwhile. A stretch that was on its way
 * while the list changed (a live event applied to it) may bring a comment as
 * it was before that change: an event about a comment not loaded yet changes
 * nothing. The list is then read again, as many reads as it now has.
 */
export function useMoreComments(postId: string) {
  const queryClient = useQueryClient();
  const key = itemKeys.comments(postId);
  const updates = () => queryClient.getQueryState(key)?.dataUpdateCount;
  return useMutation({
    mutationFn: async (fold: Fold) => {
      const updatesBefore = updates();
      const page = await fetchPage(postId, fold);
      return { page, overtaken: updates() !== updatesBefore };
    },
    onSuccess: ({ page, overtaken }, fold) => {
      queryClient.setQueryData<LoadedComments>(key, (data) =>
        data && sameFold(data.fold, fold) ? withPage(data, page) : data,
      );
      if (overtaken) void readAgain(queryClient, { queryKey: key, exact: true });
    },
    onError: (error) => console.error("Loading more comments failed:", error),
  });
}

/**
 * The owner's overlay on a post's comments: null for everyone but the
 * signed-in owner (docs/decisions/016-owner-voice.md), undefined until the
 * comments' first answer says which; `postId` null for an item without comments.
 */
export function useOwnerOverlay(postId: string | null): OwnerOverlay | null | undefined {
  const queryClient = useQueryClient();
  const { data } = useQuery({
    ...commentsQuery(queryClient, postId ?? ""),
    enabled: postId !== null,
  });
  // A session that ended elsewhere leaves the pages' cookie with the owner's
  // name (contract/site-config.ts): the first answer without the owner clears it.
  useEffect(() => {
    if (data && !data.owner && document.cookie.includes(`${ownerNameCookie}=`)) {
      // biome-ignore lint/suspicious/noDocumentCookie: the Cookie Store API is not in every browser yet.
      document.cookie = `${ownerNameCookie}=; Max-Age=0; Path=/; SameSite=Strict${location.protocol === "https:" ? "; Secure" : ""}`;
    }
  }, [data]);
  if (postId === null) return null;
  return data && (data.owner ?? null);
}

/** Edit and delete (the composer adds); the cache follows the server's answer, a failure changes nothing. */
export function useCommentActions(postId: string, onError: (error: unknown) => void) {
  const queryClient = useQueryClient();
  const key = itemKeys.comments(postId);
  const update = (change: (data: LoadedComments) => LoadedComments) =>
    queryClient.setQueryData<LoadedComments>(key, (data) => (data ? change(data) : data));
  // The signed-in owner changes any comment through the console's API, which
  // audits it (docs/decisions/016-owner-voice.md); a visitor only their own.
  const byOwner = () => queryClient.getQueryData<LoadedComments>(key)?.owner !== undefined;
  const fail = (what: string) => (error: unknown) => {
    console.error(`${what} failed:`, error);
    onError(error);
  };

  const edit = useMutation({
    mutationFn: ({ id, ...body }: { id: number; content: string; userName: string }) =>
      byOwner()
        ? api("PATCH /admin/comments/:id", { params: { id }, body: { content: body.content } })
        : api("PATCH /comments/:id", { params: { id }, body }),
    onSuccess: ({ comment }) => update((data) => withChanged(data, comment)),
    onError: fail("Editing a comment"),
  });

  const remove = useMutation({
    mutationFn: (id: number) =>
      byOwner()
        ? api("DELETE /admin/comments/:id", { params: { id } })
        : api("DELETE /comments/:id", { params: { id } }),
    onMutate: async (id) => {
      await queryClient.cancelQueries({ queryKey: key });
      const previous = queryClient.getQueryData<LoadedComments>(key);
      update((data) => withDeleted(data, id));
      return { previous };
    },
    onError: (error, _id, context) => {
      if (context?.previous) queryClient.setQueryData(key, context.previous);
      fail("Deleting a comment")(error);
    },
  });

  return { edit, remove };
}
