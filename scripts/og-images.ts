import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { Resvg } from "@resvg/resvg-js";
import satori from "satori";
import type { Item } from "../content/items.ts";
import type { IconName } from "../content/schema.ts";

/*
 * Share images (docs/decisions/013-item-pages-and-feeds.md): one 1200×630 PNG
 * per item, from its title, section and illustration, in the site's colours,
 * drawn by satori (layout to SVG) and resvg (SVG to PNG) at build time.
 *
 * One font, Inter (SIL Open Font Licence, from @expo-google-fonts/inter, which
 * ships it as TTF), serves both: satori needs TTF, OTF or WOFF, and resvg, which
 * also draws the labels inside the illustrations, reads only TTF and OTF. No
 * system font is used, so every machine draws the same pixels, and a PNG is
 * kept by the hash of what it is drawn from: a rebuild redraws only what changed.
 */

const shareImageSize = { width: 1200, height: 630 } as const;

const require = createRequire(import.meta.url);
const fontFiles = {
  regular: require.resolve("@expo-google-fonts/inter/400Regular/Inter_400Regular.ttf"),
  bold: require.resolve("@expo-google-fonts/inter/700Bold/Inter_700Bold.ttf"),
};

/** The site's palette (app/app.css, @theme). */
const colour = {
  accent: "#22c55e",
  ink: "#0b0f14",
  panel: "#111821",
  line: "#1f2a37",
  title: "#f8fafc",
  text: "#cbd5e1",
  muted: "#94a3b8",
};

/** Bumped when the drawing below changes, so cached images are redrawn. */
const designVersion = "1";

type ShareCard = {
  /** Where the PNG goes, below the client folder: `/og/science/soap.png`. */
  path: string;
  eyebrow: string;
  title: string;
  footer: string;
  /** An illustration from content/images/, or else an icon of the sprite. */
  image: { src: string; width: number; height: number } | null;
  icon: IconName | "zap" | "graduation-cap";
};

const sectionIcons: Record<string, ShareCard["icon"]> = {
  technical: "cog",
  "non-technical": "graduation-cap",
  "mechfusion-ai": "brain-circuit",
  mythology: "sparkles",
  science: "lightbulb",
};

export function itemShareCard(item: Item, siteName: string): ShareCard {
  return {
    path: item.shareImage,
    eyebrow: `${item.section.name} · ${item.group}`,
    title: item.title,
    footer: siteName,
    image: item.image,
    icon: item.icon ?? sectionIcons[item.section.id] ?? "zap",
  };
}

type Node = { type: string; props: Record<string, unknown> };
/** A flex box (satori lays out nothing else), with its style and what it holds. */
const box = (style: Record<string, unknown>, children?: unknown): Node => ({
  type: "div",
  props: { style: { display: "flex", ...style }, children },
});
/** An image `src` (a data: address) shown at `width` × `height`. */
const img = (src: string, width: number, height: number, style = {}): Node => ({
  type: "img",
  props: { style: { width, height, ...style }, src, width, height },
});
const centred = { alignItems: "center", justifyContent: "center" };

const dataUri = (svg: string | Buffer) =>
  `data:image/svg+xml;base64,${Buffer.from(svg).toString("base64")}`;

const resvgFonts = {
  fontFiles: [fontFiles.regular, fontFiles.bold],
  loadSystemFonts: false,
  defaultFontFamily: "Inter",
  sansSerifFamily: "Inter",
};

/**
 * An illustration drawn to PNG first, at twice the size it is shown: resvg draws
 * the text of an SVG it is given, not that of an SVG nested in it as an image.
 */
function illustrationPng(file: string, width: number): string {
  const png = new Resvg(readFileSync(file), {
    fitTo: { mode: "width", value: width * 2 },
    font: resvgFonts,
  })
    .render()
    .asPng();
  return `data:image/png;base64,${png.toString("base64")}`;
}

function iconSvg(sprite: string, name: string, stroke: string): string {
  const match = new RegExp(`<symbol id="${name}" viewBox="([^"]+)">([\\s\\S]*?)</symbol>`).exec(
    sprite,
  );
  if (!match) throw new Error(`share images: icon "${name}" is not in the sprite`);
  return `<svg xmlns="http://www.w3.org/2000/svg" viewBox="${match[1]}" width="24" height="24" fill="none" stroke="${stroke}" stroke-width="1.6" stroke-linecap="round" stroke-linejoin="round">${match[2]}</svg>`;
}

/** The right-hand column: the illustration, or the icon's tile. */
const pictureWidth = 480;

/** Long titles get a smaller size, so every title fits in four lines. */
function titleSize(title: string): number {
  if (title.length <= 32) return 64;
  if (title.length <= 56) return 54;
  if (title.length <= 84) return 46;
  return 40;
}

function layout(card: ShareCard, contentRoot: string, sprite: string): Node {
  const icon = (name: string, stroke: string, size: number) =>
    img(dataUri(iconSvg(sprite, name, stroke)), size, size);
  const picture = card.image
    ? box(
        {
          borderRadius: 24,
          border: `2px solid ${colour.line}`,
          backgroundColor: colour.ink,
          overflow: "hidden",
        },
        img(
          illustrationPng(path.join(contentRoot, "images", card.image.src), pictureWidth),
          pictureWidth,
          Math.min(430, Math.round((pictureWidth * card.image.height) / card.image.width)),
          { objectFit: "contain" },
        ),
      )
    : box(
        {
          ...centred,
          width: 320,
          height: 320,
          borderRadius: 48,
          backgroundColor: "rgba(34, 197, 94, 0.10)",
          border: "2px solid rgba(34, 197, 94, 0.35)",
        },
        icon(card.icon, colour.accent, 184),
      );
  const badge = box(
    { ...centred, width: 52, height: 52, borderRadius: 14, backgroundColor: colour.accent },
    icon("zap", colour.ink, 32),
  );
  return box(
    {
      width: shareImageSize.width,
      height: shareImageSize.height,
      backgroundColor: colour.ink,
      backgroundImage:
        "radial-gradient(circle at 0% 0%, rgba(34, 197, 94, 0.18), rgba(11, 15, 20, 0) 55%)",
      fontFamily: "Inter",
      padding: 64,
    },
    [
      box(
        {
          flexDirection: "column",
          justifyContent: "space-between",
          width: shareImageSize.width - 2 * 64 - pictureWidth - 48,
          height: shareImageSize.height - 2 * 64,
          marginRight: 48,
        },
        [
          box({ flexDirection: "column" }, [
            box(
              {
                fontSize: 24,
                fontWeight: 700,
                color: colour.accent,
                textTransform: "uppercase",
                letterSpacing: 2,
              },
              card.eyebrow,
            ),
            box(
              {
                marginTop: 24,
                fontSize: titleSize(card.title),
                fontWeight: 700,
                lineHeight: 1.12,
                color: colour.title,
              },
              card.title,
            ),
          ]),
          box({ alignItems: "center" }, [
            badge,
            box({ marginLeft: 18, fontSize: 30, fontWeight: 700, color: colour.text }, card.footer),
          ]),
        ],
      ),
      box({ ...centred, width: pictureWidth, flexShrink: 0 }, picture),
    ],
  );
}

type DrawOptions = {
  clientDir: string;
  contentRoot: string;
  cacheDir: string;
  sprite: string;
};

/** Draws every card into the client folder; returns how many were drawn rather than reused. */
export async function writeShareImages(cards: ShareCard[], options: DrawOptions) {
  const fonts = {
    regular: readFileSync(fontFiles.regular),
    bold: readFileSync(fontFiles.bold),
  };
  const fontHash = createHash("sha256").update(fonts.regular).update(fonts.bold).digest("hex");
  mkdirSync(options.cacheDir, { recursive: true });
  let drawn = 0;
  for (const card of cards) {
    const illustration = card.image
      ? readFileSync(path.join(options.contentRoot, "images", card.image.src))
      : "";
    const key = createHash("sha256")
      .update(JSON.stringify({ designVersion, card, fontHash }))
      .update(illustration)
      .update(options.sprite)
      .digest("hex");
    const cached = path.join(options.cacheDir, `${key}.png`);
    if (!existsSync(cached)) {
      const svg = await satori(layout(card, options.contentRoot, options.sprite) as never, {
        ...shareImageSize,
        fonts: [
          { name: "Inter", data: fonts.regular, weight: 400, style: "normal" },
          { name: "Inter", data: fonts.bold, weight: 700, style: "normal" },
        ],
      });
      const png = new Resvg(svg, {
        fitTo: { mode: "width", value: shareImageSize.width },
        font: resvgFonts,
      })
        .render()
        .asPng();
      writeFileSync(cached, png);
      drawn++;
    }
    const target = path.join(options.clientDir, card.path);
    mkdirSync(path.dirname(target), { recursive: true });
    writeFileSync(target, readFileSync(cached));
  }
  return { drawn, reused: cards.length - drawn };
}
