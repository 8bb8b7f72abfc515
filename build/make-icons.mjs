// Draws the app's icons with Node alone (zlib and a small PNG encoder): a blue rounded square
// holding a contract page with a signature stroke and a green check. Writes build/icon.png
// (512×512, which electron-builder turns into .ico and .icns) and build/tray.png (32×32).
// Run: node build/make-icons.mjs
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { crc32, deflateSync } from 'node:zlib';

const CANVAS = 512;
const SUBSAMPLES = 4;

const BLUE_TOP = [39, 96, 168];
const BLUE_BOTTOM = [24, 64, 122];
const PAGE = [255, 255, 255];
const FOLD = [200, 214, 235];
const RULE = [176, 188, 204];
const INK = [24, 64, 122];
const GREEN = [46, 157, 91];

function insideRoundedRect(x, y, left, top, right, bottom, radius) {
  if (x < left || x > right || y < top || y > bottom) return false;
  const cx = Math.min(Math.max(x, left + radius), right - radius);
  const cy = Math.min(Math.max(y, top + radius), bottom - radius);
  return (x - cx) ** 2 + (y - cy) ** 2 <= radius ** 2;
}

function distanceToSegment(x, y, [ax, ay], [bx, by]) {
  const dx = bx - ax;
  const dy = by - ay;
  const t = Math.max(0, Math.min(1, ((x - ax) * dx + (y - ay) * dy) / (dx * dx + dy * dy)));
  return Math.hypot(x - (ax + t * dx), y - (ay + t * dy));
}

const SIGNATURE = Array.from({ length: 41 }, (_, i) => {
  const x = 182 + i * 3.6;
  return [x, 338 - 18 * Math.sin(i / 4.2) * Math.exp(-i / 60)];
});
const CHECK = [
  [338, 392],
  [362, 416],
  [404, 366],
];

/** The colour of the scene at (x, y) in the 512-unit canvas, or undefined where transparent. */
function sceneAt(x, y) {
  if (!insideRoundedRect(x, y, 16, 16, 496, 496, 96)) return undefined;
  let colour = BLUE_TOP.map((top, i) => top + ((BLUE_BOTTOM[i] - top) * (y - 16)) / 480);

  const onPage = x >= 144 && x <= 368 && y >= 88 && y <= 424 && x - 312 <= y - 88;
  if (onPage) colour = PAGE;
  if (x > 312 && x <= 368 && y >= 88 && y <= 144 && x - 312 <= y - 88) colour = FOLD;
  if (onPage) {
    for (const ruleY of [176, 212, 248]) {
      if (y >= ruleY && y <= ruleY + 10 && x >= 180 && x <= (ruleY === 248 ? 280 : 332)) colour = RULE;
    }
    if (x > 170 && x < 340 && y > 300 && y < 370) {
      for (let i = 1; i < SIGNATURE.length; i += 1) {
        if (distanceToSegment(x, y, SIGNATURE[i - 1], SIGNATURE[i]) <= 5) {
          colour = INK;
          break;
        }
      }
    }
  }

  if ((x - 372) ** 2 + (y - 390) ** 2 <= 72 ** 2) {
    colour = GREEN;
    if (
      distanceToSegment(x, y, CHECK[0], CHECK[1]) <= 9 ||
      distanceToSegment(x, y, CHECK[1], CHECK[2]) <= 9
    ) {
      colour = PAGE;
    }
  }
  return colour;
}

/** Renders the scene at `size`×`size` pixels, antialiased by supersampling, as RGBA bytes. */
function render(size) {
  const pixels = Buffer.alloc(size * size * 4);
  const scale = CANVAS / size;
  const samples = SUBSAMPLES * SUBSAMPLES;
  for (let py = 0; py < size; py += 1) {
    for (let px = 0; px < size; px += 1) {
      let r = 0;
      let g = 0;
      let b = 0;
      let covered = 0;
      for (let sy = 0; sy < SUBSAMPLES; sy += 1) {
        for (let sx = 0; sx < SUBSAMPLES; sx += 1) {
          const colour = sceneAt(
            (px + (sx + 0.5) / SUBSAMPLES) * scale,
            (py + (sy + 0.5) / SUBSAMPLES) * scale,
          );
          if (!colour) continue;
          r += colour[0];
          g += colour[1];
          b += colour[2];
          covered += 1;
        }
      }
      const offset = (py * size + px) * 4;
      if (covered > 0) {
        pixels[offset] = Math.round(r / covered);
        pixels[offset + 1] = Math.round(g / covered);
        pixels[offset + 2] = Math.round(b / covered);
        pixels[offset + 3] = Math.round((255 * covered) / samples);
      }
    }
  }
  return pixels;
}

function chunk(type, data) {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const typed = Buffer.concat([Buffer.from(type, 'ascii'), data]);
  const checksum = Buffer.alloc(4);
  checksum.writeUInt32BE(crc32(typed));
  return Buffer.concat([length, typed, checksum]);
}

/** Encodes RGBA pixels as a PNG: signature, IHDR (8-bit RGBA), one IDAT, IEND. */
function encodePng(size, rgba) {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(size, 0);
  header.writeUInt32BE(size, 4);
  header[8] = 8; // bit depth
  header[9] = 6; // colour type: RGBA
  const rows = Buffer.alloc(size * (size * 4 + 1));
  for (let y = 0; y < size; y += 1) {
    rows[y * (size * 4 + 1)] = 0; // filter: none
    rgba.copy(rows, y * (size * 4 + 1) + 1, y * size * 4, (y + 1) * size * 4);
  }
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(rows, { level: 9 })),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

const here = import.meta.dirname;
for (const [name, size] of [
  ['icon.png', 512],
  ['tray.png', 32],
]) {
  writeFileSync(join(here, name), encodePng(size, render(size)));
  console.log(`wrote build/${name} (${size}×${size})`);
}
