import type { SpriteIcon } from "../icons/names.ts";
import sprite from "../icons/sprite.svg?no-inline";

export type { SpriteIcon };

/**
 * A decorative icon from the sprite (scripts/generate-icons.ts): the page holds
 * only a reference, and the sprite is one cached file for every page.
 */
export function Icon({ name, className = "size-5" }: { name: SpriteIcon; className?: string }) {
  return (
    <svg
      aria-hidden="true"
      className={className}
      fill="none"
      stroke="currentColor"
      strokeWidth={2}
      strokeLinecap="round"
      strokeLinejoin="round"
    >
      <use href={`${sprite}#${name}`} />
    </svg>
  );
}
