import type { CommentNotifier } from "../comments/notifier.ts";
import type { ForgetExamples } from "../comments/removal.ts";
import { createCommentsRepository, type ReplySettings } from "../comments/repository.ts";
import type { Store } from "../db/store.ts";
import type { EventBus } from "../events/bus.ts";
import type { EventJournal } from "../events/journal.ts";
import { createReactionsRepository } from "./reactions-repository.ts";
import { createSubscribersRepository } from "./subscribers-repository.ts";
import { createVisitorDataRepository } from "./visitor-data-repository.ts";
import type { WriterKeys } from "./writer-keys.ts";

export { createEventJournal } from "../events/journal.ts";

/**
 * Every repository of the engagement store; writes report their events to
 * `bus`. `keys` give the comment avatars (server/engagement/writer-keys.ts).
 */
export function createEngagement(
  store: Store,
  events: EventJournal,
  bus: Pick<EventBus, "committed">,
  keys: Pick<WriterKeys, "avatarOf">,
  /** Moderation's: what the spam filter learnt from a comment goes with its text. */
  forgetSpamExamples: ForgetExamples,
  notifier: CommentNotifier | undefined,
  replies: ReplySettings,
  clock?: () => Date,
) {
  return {
    subscribers: createSubscribersRepository(store, replies),
    reactions: createReactionsRepository(store, events, bus),
    comments: createCommentsRepository(
      store,
      events,
      bus,
      keys.avatarOf,
      forgetSpamExamples,
      notifier,
      replies,
      clock,
    ),
    visitorData: createVisitorDataRepository(store),
    events,
  };
}

export type Engagement = ReturnType<typeof createEngagement>;
