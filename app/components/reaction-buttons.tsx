import { type ReactionType, reactionTypes } from "../../contract/limits.ts";
import { Icon, type SpriteIcon } from "./ui/icon.tsx";

export type ReactionCounts = Record<ReactionType, number>;

const looks: Record<ReactionType, { label: string; icon: SpriteIcon; active: string }> = {
  like: { label: "Like", icon: "thumbs-up", active: "text-accent ring-accent/60 bg-accent/10" },
  love: { label: "Love", icon: "heart", active: "text-rose-400 ring-rose-400/60 bg-rose-400/10" },
  dislike: {
    label: "Dislike",
    icon: "thumbs-down",
    active: "text-slate-200 ring-slate-300/60 bg-slate-300/10",
  },
  idea: {
    label: "Idea",
    icon: "lightbulb",
    active: "text-amber-400 ring-amber-400/60 bg-amber-400/10",
  },
};

type ReactionButtonsProps = {
  /** Unknown until they are read: a dash in each button, not a count of 0 that is not true. */
  counts: ReactionCounts | null;
  held?: ReadonlySet<ReactionType>;
  onReact: (type: ReactionType) => void;
  disabled?: boolean;
};

/** Four toggle buttons named "Like 42", "Love 18"…; pressed when the visitor holds that type. */
export function ReactionButtons({ counts, held, onReact, disabled }: ReactionButtonsProps) {
  return (
    <div className="flex flex-wrap gap-2">
      {reactionTypes.map((type) => {
        const look = looks[type];
        const pressed = held?.has(type) ?? false;
        return (
          <button
            key={type}
            type="button"
            aria-pressed={held ? pressed : undefined}
            disabled={disabled}
            onClick={() => onReact(type)}
            className={`inline-flex min-h-11 min-w-11 items-center gap-2 rounded-full px-3 py-1.5 text-sm ring-1 transition-colors disabled:opacity-60 ${
              pressed ? look.active : "text-slate-300 ring-line hover:bg-white/5"
            }`}
          >
            <Icon name={look.icon} className="size-4" />
            <span className="sr-only">{look.label} </span>
            <span>{counts ? counts[type] : "–"}</span>
          </button>
        );
      })}
    </div>
  );
}
