import { Resvg } from "@resvg/resvg-js";

/**
 * `/favicon.ico`, drawn from the site's icon (public/favicon.svg) at build
 * time. Pages declare the SVG; a browser asks for /favicon.ico when a page
 * declares nothing (a text file, an image opened on its own, a page another
 * program wrote), and so do feed readers and link previews. An ICO file may
 * hold PNG images: one for each size, as browsers pick the closest.
 */
export function faviconIco(svg: string, sizes: readonly number[] = [16, 32, 48]): Buffer {
  const pngs = sizes.map((size) =>
    new Resvg(svg, { fitTo: { mode: "width", value: size } }).render().asPng(),
  );
  const header = Buffer.alloc(6);
  header.writeUInt16LE(0, 0); // reserved
  header.writeUInt16LE(1, 2); // 1: an icon
  header.writeUInt16LE(sizes.length, 4);
  const entries = Buffer.alloc(16 * sizes.length);
  let offset = header.length + entries.length;
  sizes.forEach((size, index) => {
    const png = pngs[index] ?? Buffer.alloc(0);
    const at = index * 16;
    entries.writeUInt8(size >= 256 ? 0 : size, at); // width; 0 is 256
    entries.writeUInt8(size >= 256 ? 0 : size, at + 1); // height
    entries.writeUInt8(0, at + 2); // no palette
    entries.writeUInt8(0, at + 3); // reserved
    entries.writeUInt16LE(1, at + 4); // colour planes
    entries.writeUInt16LE(32, at + 6); // bits per pixel
    entries.writeUInt32LE(png.length, at + 8);
    entries.writeUInt32LE(offset, at + 12);
    offset += png.length;
  });
  return Buffer.concat([header, entries, ...pngs]);
}
