import { createElement as h } from "react";

/* A comment's writer's picture, as the server and the island both draw it (comment-view.ts). */

/**
 * The cells a seed fills on a 5×5 grid, mirrored left to right: 15 bits of it
 * choose the cells of the left three columns, 9 more the hue.
 */
function identicon(seed: string): { path: string; hue: number } {
  const bits = Number.parseInt(seed.slice(0, 4), 16);
  const hue = Number.parseInt(seed.slice(4, 7), 16) % 360;
  let path = "";
  for (let row = 0; row < 5; row++) {
    for (let column = 0; column < 3; column++) {
      if (((bits >> (row * 3 + column)) & 1) === 0) continue;
      path += `M${column} ${row}h1v1h-1z`;
      if (column < 2) path += `M${4 - column} ${row}h1v1h-1z`;
    }
  }
  return { path, hue };
}

/**
 * A small picture drawn from the writer's avatar seed (an HMAC of their
 * visitor credential, docs/decisions/010-moderation-and-spam.md), so two
 * readers who type the same name still look different. Decorative: the name
 * beside it says who wrote.
 */
export function Avatar({ seed }: { seed: string }) {
  const { path, hue } = identicon(seed);
  return h(
    "svg",
    {
      className: "comment-avatar",
      viewBox: "-0.5 -0.5 6 6",
      width: 24,
      height: 24,
      "aria-hidden": true,
      focusable: false,
      shapeRendering: "crispEdges",
      "data-avatar": seed,
    },
    h("rect", { x: -0.5, y: -0.5, width: 6, height: 6, rx: 1, fill: `hsl(${hue} 35% 18%)` }),
    h("path", { d: path, fill: `hsl(${hue} 70% 62%)` }),
  );
}

/**
 * A Fediverse writer's picture: the copy the site keeps and serves from its
 * own origin (server/fediverse/pictures.ts), so the page never asks their
 * server for it. Decorative, as the drawn avatar is.
 */
export function RemoteAvatar({ src }: { src: string }) {
  return h("img", {
    className: "comment-avatar",
    src,
    alt: "",
    width: 24,
    height: 24,
    loading: "lazy",
    decoding: "async",
  });
}
