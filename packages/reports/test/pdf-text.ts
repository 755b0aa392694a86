/**
 * The text of a PDF, for tests: extracted by unpdf (PDF.js) in a child node process, because
 * PDF.js is an ES module that the tests' CommonJS runtime cannot load. The bytes go in on stdin,
 * the text of every page comes back, pages separated by a line break.
 */
import { execFile } from 'node:child_process';
import path from 'node:path';

const EXTRACT = `
import { extractText, getDocumentProxy } from 'unpdf';
const chunks = [];
for await (const chunk of process.stdin) chunks.push(chunk);
const pdf = await getDocumentProxy(new Uint8Array(Buffer.concat(chunks)));
const { text } = await extractText(pdf, { mergePages: false });
process.stdout.write(JSON.stringify({ pages: pdf.numPages, text: text.join('\\n') }));
`;

/** Where `unpdf` resolves from (this package's devDependency). */
const PACKAGE_DIR = path.resolve(__dirname, '..');

export function pdfText(bytes: Uint8Array): Promise<{ pages: number; text: string }> {
  return new Promise((resolve, reject) => {
    const child = execFile(
      process.execPath,
      ['--input-type=module', '-e', EXTRACT],
      { cwd: PACKAGE_DIR, maxBuffer: 16 * 1024 * 1024 },
      (error, stdout, stderr) => {
        if (error) reject(new Error(`PDF text extraction failed: ${stderr || error.message}`));
        else resolve(JSON.parse(stdout) as { pages: number; text: string });
      },
    );
    child.stdin?.end(Buffer.from(bytes));
  });
}
