/** Markdown from content/, rendered to HTML at build time (never user text). */
export function Prose({ html, className = "" }: { html: string; className?: string }) {
  return (
    <div
      className={`prose-content ${className}`}
      // biome-ignore lint/security/noDangerouslySetInnerHtml: our own content, rendered at build time
      dangerouslySetInnerHTML={{ __html: html }}
    />
  );
}
