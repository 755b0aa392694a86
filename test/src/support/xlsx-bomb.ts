/**
 * Hostile workbooks for the isolation suites: a valid `.xlsx` container (a hand-built zip, its
 * parts deflated with node:zlib) whose shared-string table inflates to far more than it weighs.
 * The table is one deflate stream made of a block repeated: each block is deflated with a full
 * flush, so it refers to nothing before it and the same compressed bytes can follow each other.
 */
import { constants, deflateRawSync } from 'node:zlib';

/** CRC-32 (the zip's checksum) of small parts. */
function crc32(bytes: Buffer): number {
  let crc = 0xffffffff;
  for (const byte of bytes) {
    crc ^= byte;
    for (let bit = 0; bit < 8; bit += 1) crc = crc & 1 ? (crc >>> 1) ^ 0xedb88320 : crc >>> 1;
  }
  return (crc ^ 0xffffffff) >>> 0;
}

interface ZipPart {
  readonly name: string;
  /** The raw deflate stream of the part. */
  readonly deflated: Buffer;
  readonly size: number;
  /** The part's CRC-32; 0 for a bomb (a reader is expected to stop long before its end). */
  readonly crc: number;
}

function deflatedPart(name: string, text: string): ZipPart {
  const bytes = Buffer.from(text);
  return { name, deflated: deflateRawSync(bytes), size: bytes.length, crc: crc32(bytes) };
}

/** The checksum, sizes and name length of `part`, which both its headers hold from `at` on. */
function describe(header: Buffer, at: number, part: ZipPart, name: Buffer): void {
  header.writeUInt32LE(part.crc, at);
  header.writeUInt32LE(part.deflated.length, at + 4);
  header.writeUInt32LE(part.size, at + 8);
  header.writeUInt16LE(name.length, at + 12);
}

/** A zip archive of `parts` (method deflate, no data descriptors, no zip64). */
function zipOf(parts: readonly ZipPart[]): Buffer {
  const locals: Buffer[] = [];
  const central: Buffer[] = [];
  let offset = 0;
  for (const part of parts) {
    const name = Buffer.from(part.name);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(8, 8);
    describe(local, 14, part, name);
    const entry = Buffer.alloc(46);
    entry.writeUInt32LE(0x02014b50, 0);
    entry.writeUInt16LE(20, 4);
    entry.writeUInt16LE(20, 6);
    entry.writeUInt16LE(8, 10);
    describe(entry, 16, part, name);
    entry.writeUInt32LE(offset, 42);
    locals.push(local, name, part.deflated);
    central.push(entry, name);
    offset += local.length + name.length + part.deflated.length;
  }
  const directory = Buffer.concat(central);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(parts.length, 8);
  end.writeUInt16LE(parts.length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, directory, end]);
}

const MAIN = 'http://schemas.openxmlformats.org/spreadsheetml/2006/main';
const RELATIONSHIPS = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';

/**
 * A one-sheet workbook whose `xl/sharedStrings.xml` holds `count` strings of `bytes` bytes each
 * (by default 4,000 of 1 MiB: about 4 MB deflated, 4 GB inflated).
 */
export function sharedStringsBomb(count = 4000, bytes = 1024 * 1024): Buffer {
  const flushed = { finishFlush: constants.Z_FULL_FLUSH };
  const head = Buffer.from(`<?xml version="1.0" encoding="UTF-8"?><sst xmlns="${MAIN}" count="${count}">`);
  const block = Buffer.from(`<si><t>${'a'.repeat(bytes)}</t></si>`);
  const tail = Buffer.from('</sst>');
  const strings: ZipPart = {
    name: 'xl/sharedStrings.xml',
    deflated: Buffer.concat([
      deflateRawSync(head, flushed),
      ...Array<Buffer>(count).fill(deflateRawSync(block, flushed)),
      deflateRawSync(tail),
    ]),
    size: (head.length + count * block.length + tail.length) % 2 ** 32,
    crc: 0,
  };
  return zipOf([
    deflatedPart(
      '[Content_Types].xml',
      '<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">' +
        '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>' +
        '<Default Extension="xml" ContentType="application/xml"/>' +
        '<Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/></Types>',
    ),
    deflatedPart(
      '_rels/.rels',
      `<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">` +
        `<Relationship Id="rId1" Type="${RELATIONSHIPS}/officeDocument" Target="xl/workbook.xml"/></Relationships>`,
    ),
    deflatedPart(
      'xl/workbook.xml',
      `<?xml version="1.0" encoding="UTF-8"?><workbook xmlns="${MAIN}" xmlns:r="${RELATIONSHIPS}">` +
        '<sheets><sheet name="companies" sheetId="1" r:id="rId1"/></sheets></workbook>',
    ),
    deflatedPart(
      'xl/_rels/workbook.xml.rels',
      `<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">` +
        `<Relationship Id="rId1" Type="${RELATIONSHIPS}/worksheet" Target="worksheets/sheet1.xml"/>` +
        `<Relationship Id="rId2" Type="${RELATIONSHIPS}/sharedStrings" Target="sharedStrings.xml"/></Relationships>`,
    ),
    deflatedPart(
      'xl/worksheets/sheet1.xml',
      `<?xml version="1.0" encoding="UTF-8"?><worksheet xmlns="${MAIN}"><sheetData>` +
        '<row r="1"><c r="A1" t="s"><v>0</v></c></row></sheetData></worksheet>',
    ),
    strings,
  ]);
}
