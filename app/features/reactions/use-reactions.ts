import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import type { ReactionsResponse } from "../../../contract/api.ts";
import type { ItemKind, ReactionType } from "../../../contract/limits.ts";
import { api } from "../../lib/api-client.ts";
import { itemKeys } from "../../lib/query-keys.ts";

export function useReactions(kind: ItemKind, id: string) {
  return useQuery({
    queryKey: itemKeys.reactions(kind, id),
    queryFn: () => api("GET /items/:kind/:id/reactions", { params: { kind, id } }),
  });
}

type Toggle = { type: ReactionType; userName: string; held: boolean };

/**
 * A type the visitor holds is removed, any other is added (docs/product.md,
 * "Reacting and commenting"). The change
 * shows at once and is rolled back if the server refuses it. Toggles of one
 * item reach the server one after another: a second click sent beside the
 * first could be applied before it (and a Like clicked twice stay held), and
 * the first's answer, landing after the second click, would show the
 * reaction held again. So only the last toggle's answer is shown.
 */
export function useToggleReaction(kind: ItemKind, id: string, onError: (error: unknown) => void) {
  const queryClient = useQueryClient();
  const key = itemKeys.reactions(kind, id);
  const later = () => queryClient.isMutating({ mutationKey: key, exact: true }) > 1;
  return useMutation({
    mutationKey: key,
    scope: { id: key.join("/") },
    mutationFn: ({ type, userName, held }: Toggle) =>
      held
        ? api("DELETE /items/:kind/:id/reactions/:type", { params: { kind, id, type } })
        : api("POST /items/:kind/:id/reactions", {
            params: { kind, id },
            body: { type, userName },
          }),
    onMutate: async ({ type, held }) => {
      await queryClient.cancelQueries({ queryKey: key });
      const previous = queryClient.getQueryData<ReactionsResponse>(key);
      if (previous) {
        queryClient.setQueryData<ReactionsResponse>(key, {
          counts: {
            ...previous.counts,
            [type]: Math.max(0, previous.counts[type] + (held ? -1 : 1)),
          },
          mine: held ? previous.mine.filter((t) => t !== type) : [...previous.mine, type],
        });
      }
      return { previous };
    },
    onError: (error, _toggle, context) => {
      console.error("Reaction failed:", error);
      // A later toggle's answer shows the server's state.
      if (context?.previous && !later()) queryClient.setQueryData(key, context.previous);
      onError(error);
    },
    onSuccess: (result) => {
      if (!later()) queryClient.setQueryData(key, result);
    },
  });
}
