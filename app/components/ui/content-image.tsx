import type { Image } from "../../../content/schema.ts";

/** A content image with its intrinsic size (no layout shift), loaded when needed. */
export function ContentImage({
  image,
  className = "",
  eager = false,
}: {
  image: Image;
  className?: string;
  eager?: boolean;
}) {
  return (
    <img
      src={`/images/${image.src}`}
      alt={image.alt}
      width={image.width}
      height={image.height}
      loading={eager ? "eager" : "lazy"}
      fetchPriority={eager ? "high" : undefined}
      decoding="async"
      className={className}
    />
  );
}
