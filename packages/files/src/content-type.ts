/**
 * What the server decides about an uploaded file: its name, sanitised, and its content
 * type, from the bytes' signature first and the file extension second, never the client's claim;
 * and how it is served (the Content-Disposition table of the interface spec).
 */

/** Bytes of the head of a file that {@link detectContentType} looks at. */
export const SNIFF_BYTES = 64;

const MAX_FILE_NAME = 255;

const ascii = (text: string) => Buffer.from(text, 'latin1');

/** Signatures at offset 0 (or `at`), most specific first. */
const SIGNATURES: readonly { bytes: Buffer; at?: number; type: string }[] = [
  { bytes: ascii('%PDF-'), type: 'application/pdf' },
  { bytes: Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), type: 'image/png' },
  { bytes: Buffer.from([0xff, 0xd8, 0xff]), type: 'image/jpeg' },
  { bytes: ascii('GIF87a'), type: 'image/gif' },
  { bytes: ascii('GIF89a'), type: 'image/gif' },
  { bytes: ascii('WEBP'), at: 8, type: 'image/webp' },
  { bytes: Buffer.from([0x49, 0x49, 0x2a, 0x00]), type: 'image/tiff' },
  { bytes: Buffer.from([0x4d, 0x4d, 0x00, 0x2a]), type: 'image/tiff' },
  { bytes: ascii('ftypheic'), at: 4, type: 'image/heic' },
  { bytes: ascii('ftypqt'), at: 4, type: 'video/quicktime' },
  { bytes: ascii('ftyp'), at: 4, type: 'video/mp4' },
  { bytes: ascii('OggS'), type: 'audio/ogg' },
  { bytes: ascii('ID3'), type: 'audio/mpeg' },
  { bytes: Buffer.from([0x1f, 0x8b]), type: 'application/gzip' },
  { bytes: ascii('7z\u00bc\u00af\u0027\u001c'), type: 'application/x-7z-compressed' },
  { bytes: ascii('Rar!'), type: 'application/vnd.rar' },
  { bytes: Buffer.from([0x50, 0x4b, 0x03, 0x04]), type: 'application/zip' },
  { bytes: Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]), type: 'application/x-ole-storage' },
];

const BY_EXTENSION: Readonly<Record<string, string>> = {
  pdf: 'application/pdf',
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  gif: 'image/gif',
  webp: 'image/webp',
  svg: 'image/svg+xml',
  bmp: 'image/bmp',
  ico: 'image/x-icon',
  tif: 'image/tiff',
  tiff: 'image/tiff',
  txt: 'text/plain',
  csv: 'text/csv',
  md: 'text/markdown',
  html: 'text/html',
  htm: 'text/html',
  xml: 'application/xml',
  json: 'application/json',
  js: 'text/javascript',
  css: 'text/css',
  zip: 'application/zip',
  gz: 'application/gzip',
  mp3: 'audio/mpeg',
  mp4: 'video/mp4',
  mov: 'video/quicktime',
  doc: 'application/msword',
  xls: 'application/vnd.ms-excel',
  ppt: 'application/vnd.ms-powerpoint',
  docx: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  pptx: 'application/vnd.openxmlformats-officedocument.presentationml.presentation',
  odt: 'application/vnd.oasis.opendocument.text',
  ods: 'application/vnd.oasis.opendocument.spreadsheet',
};

/** Containers whose signature says little: the extension may name what is inside (an .xlsx is a zip). */
const CONTAINERS: Readonly<Record<string, readonly string[]>> = {
  'application/zip': ['docx', 'xlsx', 'pptx', 'odt', 'ods'],
  'application/x-ole-storage': ['doc', 'xls', 'ppt'],
};

const OCTET_STREAM = 'application/octet-stream';

function extensionOf(fileName: string): string {
  const dot = fileName.lastIndexOf('.');
  return dot > 0 ? fileName.slice(dot + 1).toLowerCase() : '';
}

/** The content type of a file from its first bytes, then its (sanitised) name's extension. */
export function detectContentType(head: Uint8Array, fileName: string): string {
  const bytes = Buffer.from(head.buffer, head.byteOffset, head.byteLength);
  const extension = extensionOf(fileName);
  const signature = SIGNATURES.find(({ bytes: magic, at = 0 }) =>
    bytes.subarray(at, at + magic.length).equals(magic),
  );
  if (signature) {
    const inner = CONTAINERS[signature.type]?.includes(extension) ? BY_EXTENSION[extension] : undefined;
    if (inner) return inner;
    return signature.type === 'application/x-ole-storage' ? OCTET_STREAM : signature.type;
  }
  return BY_EXTENSION[extension] ?? OCTET_STREAM;
}

/**
 * The part's file name without any path (either separator), control or bidirectional-override
 * characters, surrounding blanks, or a name of dots only; at most 255 characters; `file` when
 * nothing is left.
 */
export function sanitizeFileName(raw: string | undefined): string {
  const base = (raw ?? '').split(/[/\\]/).pop() ?? '';
  const cleaned = base
    .replace(/[\u0000-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/g, '')
    .trim();
  const name = [...cleaned].slice(0, MAX_FILE_NAME).join('');
  return /^\.*$/.test(name) ? 'file' : name;
}

/** Whether the content type is served inline (PDF and images) rather than as an attachment. */
export function servedInline(contentType: string): boolean {
  return contentType === 'application/pdf' || contentType.startsWith('image/');
}

/** The Content-Disposition header: the table's disposition, an ASCII fallback name and the UTF-8 name. */
export function contentDisposition(contentType: string, fileName: string): string {
  const fallback = fileName.replace(/[^\u0020-\u007e]|["\\]/g, '_');
  const encoded = encodeURIComponent(fileName).replace(
    /['()*]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
  );
  return `${servedInline(contentType) ? 'inline' : 'attachment'}; filename="${fallback}"; filename*=UTF-8''${encoded}`;
}
