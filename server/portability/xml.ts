import { XMLParser, XMLValidator } from "fast-xml-parser";
import type { Problem } from "./report.ts";

/**
 * Parses an export file of another system safely. Disqus and WordPress files
 * have no document type declaration, and one is what entity expansion
 * ("billion laughs") and external entities (reading local files, calling
 * URLs) need: a file with one is refused before any parser sees it. Text in
 * CDATA sections (where a comment's HTML may well mention "<!DOCTYPE html>")
 * is text, not markup, and is not taken for one. Malformed XML is reported
 * with its line and column.
 */
function outsideCdata(text: string): string {
  let out = "";
  let at = 0;
  for (;;) {
    const start = text.indexOf("<![CDATA[", at);
    if (start === -1) return out + text.slice(at);
    const end = text.indexOf("]]>", start);
    if (end === -1) return out + text.slice(at);
    // Blanked, line breaks kept, so a line number found after it still counts right.
    out += text.slice(at, start) + text.slice(start, end + 3).replace(/[^\n]/g, " ");
    at = end + 3;
  }
}

export function parseXml(
  text: string,
  /** Paths of the elements that may repeat, such as `disqus.post`. */
  arrays: ReadonlySet<string>,
): { document: Record<string, unknown> | null; problems: Problem[] } {
  const markup = outsideCdata(text);
  const declaration = /<!DOCTYPE|<!ENTITY/i.exec(markup);
  if (declaration) {
    const line = markup.slice(0, declaration.index).split("\n").length;
    return {
      document: null,
      problems: [
        {
          where: `line ${line}`,
          message:
            "the file declares a document type or entities, which Disqus and WordPress exports never do: refused, as entity declarations can expand without end or read other files",
        },
      ],
    };
  }
  const valid = XMLValidator.validate(text);
  if (valid !== true) {
    return {
      document: null,
      problems: [
        {
          where: `line ${valid.err.line}, column ${valid.err.col}`,
          message: `malformed XML: ${valid.err.msg}`,
        },
      ],
    };
  }
  const parser = new XMLParser({
    ignoreAttributes: false,
    attributeNamePrefix: "@",
    parseTagValue: false,
    parseAttributeValue: false,
    trimValues: true,
    processEntities: true,
    htmlEntities: false,
    isArray: (_name, path) => arrays.has(String(path)),
  });
  return { document: parser.parse(text) as Record<string, unknown>, problems: [] };
}

/** A child element's text ("" when absent). */
export function textOf(node: unknown, name: string): string {
  if (typeof node !== "object" || node === null) return "";
  const value = (node as Record<string, unknown>)[name];
  if (typeof value === "string" || typeof value === "number") return String(value);
  if (typeof value === "object" && value !== null && "#text" in value) {
    return String((value as Record<string, unknown>)["#text"]);
  }
  return "";
}

/** An attribute of a child element, or of the node itself when `name` is null. */
export function attributeOf(node: unknown, name: string | null, attribute: string): string {
  if (typeof node !== "object" || node === null) return "";
  const target = name === null ? node : (node as Record<string, unknown>)[name];
  if (typeof target !== "object" || target === null) return "";
  const value = (target as Record<string, unknown>)[`@${attribute}`];
  return typeof value === "string" ? value : "";
}
