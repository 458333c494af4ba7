import { XMLParser, XMLValidator } from "fast-xml-parser";
import type { Problem } from "./report.ts";

/**
 * Where the file declares something (`<!DOCTYPE`, `<!ENTITY`): its first
 * `<!` that opens neither a comment nor a CDATA section, found as the
 * parser reads the file, so that no CDATA section seen inside a comment, an
 * instruction or a quoted value hides one from this check and not from the
 * parser. -1 when there is none.
 */
function declarationAt(text: string): number {
  for (let at = text.indexOf("<"); at !== -1; ) {
    const end = text.startsWith("<!--", at)
      ? text.indexOf("-->", at + 4)
      : text.startsWith("<![", at)
        ? text.indexOf("]]>", at)
        : text.startsWith("<!", at)
          ? null
          : text.startsWith("</", at)
            ? text.indexOf(">", at)
            : tagEnd(text, at + 1, text.startsWith("<?", at) ? "?>" : ">");
    if (end === null) return at;
    // Never closed: the parser refuses the file; any later declaration is refused here first.
    if (end === -1) {
      const later = text.slice(at + 1).search(/<!(?!--|\[)/);
      return later === -1 ? -1 : at + 1 + later;
    }
    at = text.indexOf("<", end + 1);
  }
  return -1;
}

/** Where a tag or an instruction ends (its `close`), past its quoted values, as the parser finds it; -1 when it does not. */
function tagEnd(text: string, from: number, close: string): number {
  for (let at = from; at < text.length; at += 1) {
    const char = text.charAt(at);
    if (char === '"' || char === "'") {
      at = text.indexOf(char, at + 1);
      if (at === -1) return -1;
    } else if (text.startsWith(close, at)) {
      return at;
    }
  }
  return -1;
}

/**
 * Parses an export file of another system safely. Disqus and WordPress files
 * have no document type declaration, and one is what entity expansion
 * ("billion laughs") and external entities (reading local files, calling
 * URLs) need: a file with one is refused before any parser sees it. Text in
 * CDATA sections (where a comment's HTML may well mention "<!DOCTYPE html>")
 * is text, not markup, and is not taken for one. Malformed XML is reported
 * with its line and column.
 */
export function parseXml(
  text: string,
  /** Paths of the elements that may repeat, such as `disqus.post`. */
  arrays: ReadonlySet<string>,
  /** The path of the element the file is about, and what to say when it has none. */
  root: { path: string; missing: string },
): { root: Record<string, unknown> | null; problems: Problem[] } {
  const declaration = declarationAt(text);
  if (declaration !== -1) {
    const line = text.slice(0, declaration).split("\n").length;
    return {
      root: null,
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
      root: null,
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
  let parsed: unknown;
  try {
    parsed = parser.parse(text);
  } catch (error) {
    // Well-formed, but beyond the parser's limits (elements nested over 100 deep).
    return {
      root: null,
      problems: [{ where: "file", message: `cannot be read: ${(error as Error).message}` }],
    };
  }
  const node = root.path.split(".").reduce<unknown>((at, name) => childOf(at, name), parsed);
  // An element with nothing in it (an export of a blog without comments) reads as "".
  if (node === "") return { root: {}, problems: [] };
  if (typeof node !== "object" || node === null) {
    return { root: null, problems: [{ where: "file", message: root.missing }] };
  }
  return { root: node as Record<string, unknown>, problems: [] };
}

const childOf = (node: unknown, name: string): unknown =>
  typeof node === "object" && node !== null ? (node as Record<string, unknown>)[name] : undefined;

/** A repeating element's occurrences. */
export const asList = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);

/** A child element's text ("" when absent). */
export function textOf(node: unknown, name: string): string {
  const value = childOf(node, name);
  if (typeof value === "string" || typeof value === "number") return String(value);
  if (typeof value === "object" && value !== null && "#text" in value) {
    return String((value as Record<string, unknown>)["#text"]);
  }
  return "";
}

/** An attribute of a child element, or of the node itself when `name` is null. */
export function attributeOf(node: unknown, name: string | null, attribute: string): string {
  const value = childOf(name === null ? node : childOf(node, name), `@${attribute}`);
  return typeof value === "string" ? value : "";
}
