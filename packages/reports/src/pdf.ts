/**
 * HTML to PDF without a browser: the rendered report HTML is read as a flow of text blocks and
 * laid out on A4 pages with pdf-lib's standard fonts (pure JavaScript, no native code).
 *
 * What is kept: the document title (PDF metadata), headings (`h1`-`h6`, bold, larger), paragraphs
 * and other block elements as separate lines, table rows as one line with their cells separated,
 * list items with a bullet, `<br>`; `<b>`/`<strong>`/`<th>` text is not distinguished within a line.
 * What is dropped: `<head>` (except the title), `<style>`, `<script>`, images, colours and CSS.
 * Long lines wrap at word boundaries. Characters the standard fonts cannot encode (outside
 * Windows-1252) are printed as `?`.
 */
import { PDFDocument, StandardFonts } from 'pdf-lib';
import type { PDFFont } from 'pdf-lib';

interface Block {
  readonly text: string;
  /** 0 for body text, 1-6 for headings. */
  readonly heading: number;
}

const ENTITIES: Readonly<Record<string, string>> = {
  amp: '&',
  lt: '<',
  gt: '>',
  quot: '"',
  apos: "'",
  nbsp: ' ',
  middot: '·',
  euro: '€',
  copy: '©',
  ndash: '–',
  mdash: '—',
};

function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (whole, name: string) => {
    if (name.startsWith('#x') || name.startsWith('#X'))
      return String.fromCodePoint(parseInt(name.slice(2), 16));
    if (name.startsWith('#')) return String.fromCodePoint(Number(name.slice(1)));
    return ENTITIES[name.toLowerCase()] ?? whole;
  });
}

const BLOCK_TAGS =
  /^(p|div|h[1-6]|tr|li|table|thead|tbody|section|article|header|footer|ul|ol|dl|dt|dd|pre|blockquote|body|title|hr)$/;

/** The text blocks of an HTML document, in document order, and its title. */
export function htmlBlocks(html: string): { title: string | null; blocks: Block[] } {
  const title = /<title[^>]*>([\s\S]*?)<\/title>/i.exec(html)?.[1];
  const body = html
    .replace(/<!--[\s\S]*?-->/g, '')
    .replace(/<(head|style|script)\b[^>]*>[\s\S]*?<\/\1\s*>/gi, '');
  const blocks: Block[] = [];
  let line = '';
  let heading = 0;
  const flush = () => {
    const text = decodeEntities(line).replace(/\s+/g, ' ').trim();
    if (text !== '') blocks.push({ text, heading });
    line = '';
    heading = 0;
  };
  for (const part of body.split(/(<[^>]*>)/)) {
    const tag = /^<\s*(\/)?\s*([a-z0-9]+)/i.exec(part);
    if (tag === null) {
      line += part;
      continue;
    }
    const name = (tag[2] ?? '').toLowerCase();
    const closing = tag[1] === '/';
    if (name === 'br') {
      flush();
    } else if (name === 'td' || name === 'th') {
      if (!closing && line.trim() !== '') line += '   ';
    } else if (BLOCK_TAGS.test(name)) {
      flush();
      if (!closing && /^h[1-6]$/.test(name)) heading = Number(name.slice(1));
      if (!closing && name === 'li') line = '• ';
    }
  }
  flush();
  return { title: title === undefined ? null : decodeEntities(title).trim(), blocks };
}

/** The text with every character the font cannot encode replaced by `?`. */
function encodable(font: PDFFont, text: string): string {
  const supported = new Set(font.getCharacterSet());
  return [...text].map((char) => (supported.has(char.codePointAt(0) ?? 0) ? char : '?')).join('');
}

/** Words of `text` in lines no wider than `width` (a longer word gets a line of its own). */
function wrap(font: PDFFont, size: number, text: string, width: number): string[] {
  const lines: string[] = [];
  let current = '';
  for (const word of text.split(' ')) {
    const candidate = current === '' ? word : `${current} ${word}`;
    if (current !== '' && font.widthOfTextAtSize(candidate, size) > width) {
      lines.push(current);
      current = word;
    } else {
      current = candidate;
    }
  }
  if (current !== '') lines.push(current);
  return lines;
}

const PAGE: [number, number] = [595.28, 841.89];
const MARGIN = 56;
const BODY_SIZE = 11;
const HEADING_SIZES = [0, 20, 16, 14, 12, 11, 11];

export async function htmlToPdf(html: string, options: { language: string }): Promise<Uint8Array> {
  const { title, blocks } = htmlBlocks(html);
  const pdf = await PDFDocument.create();
  const regular = await pdf.embedFont(StandardFonts.Helvetica);
  const bold = await pdf.embedFont(StandardFonts.HelveticaBold);
  if (title !== null) pdf.setTitle(encodable(regular, title));
  pdf.setLanguage(options.language);
  pdf.setProducer('ODP reports');
  const width = PAGE[0] - 2 * MARGIN;
  let page = pdf.addPage(PAGE);
  let y = PAGE[1] - MARGIN;
  for (const block of blocks) {
    const font = block.heading > 0 ? bold : regular;
    const size = block.heading > 0 ? (HEADING_SIZES[block.heading] ?? BODY_SIZE) : BODY_SIZE;
    const leading = size * 1.4;
    if (block.heading > 0) y -= size * 0.5;
    for (const text of wrap(font, size, encodable(font, block.text), width)) {
      if (y - leading < MARGIN) {
        page = pdf.addPage(PAGE);
        y = PAGE[1] - MARGIN;
      }
      y -= leading;
      page.drawText(text, { x: MARGIN, y, size, font });
    }
  }
  return pdf.save();
}
