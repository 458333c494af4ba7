/** Renders one of the SVG strings of icon-markup.ts; decorative unless labelled. */
export function Icon({ svg, className = "size-5" }: { svg: string; className?: string }) {
  return (
    <svg
      aria-hidden="true"
      className={className}
      viewBox="0 0 24 24"
      fill="none"
      stroke="currentColor"
      strokeWidth={2}
      strokeLinecap="round"
      strokeLinejoin="round"
      // biome-ignore lint/security/noDangerouslySetInnerHtml: constant icon markup from our own generated module
      dangerouslySetInnerHTML={{ __html: svg }}
    />
  );
}
