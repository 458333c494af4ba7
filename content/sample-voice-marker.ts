/*
 * The sample-voice markers (docs/content.md): a line `<!-- sample-voice -->` and a
 * line `<!-- /sample-voice -->` wrap a first-person passage written for the sample
 * engineer. The pages' Markdown (content/markdown.ts) and the check that lists the
 * passages (content/sample-voice.ts) read them with these patterns. Nothing else
 * lives here, so the server's start (server/config.ts) loads no Markdown library.
 */

/** A marker alone on its line; group 1 is "/" on the closing one. */
export const sampleVoiceMarkerLine = /^[ \t]*<!--[ \t]*(\/?)sample-voice[ \t]*-->[ \t]*$/;

/** A marker anywhere, where it may not be alone on its line. */
export const sampleVoiceMarkerAnywhere = /<!--[ \t]*\/?sample-voice\b/;

const everyMarkerLine = new RegExp(sampleVoiceMarkerLine.source, "gm");

/**
 * The markers render nothing: each line becomes an empty line, so the Markdown
 * around it reads as if it were not there, and a paragraph never runs into the next.
 */
export function withoutSampleVoiceMarkers(markdown: string): string {
  return markdown.replace(everyMarkerLine, "");
}
