/**
 * Child process: the physical ceiling of moving file bytes over HTTP. Bare `node:http` on PORT of
 * 127.0.0.1 that streams a request body into a file (`POST /`) and a file into a response
 * (`GET /`), the same disk work the platform's filesystem blob store does, without multipart,
 * tokens or records. Prints `LISTENING` when it accepts requests.
 */
import { createReadStream, createWriteStream, mkdtempSync, rmSync, statSync } from 'node:fs';
import { createServer } from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { pipeline } from 'node:stream';

const dir = mkdtempSync(path.join(os.tmpdir(), 'odp-bench-bare-stream-'));
const file = path.join(dir, 'body');
const server = createServer((request, response) => {
  if (request.method === 'POST') {
    pipeline(request, createWriteStream(file), (error) => {
      response.writeHead(error ? 500 : 200, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ size: error ? 0 : statSync(file).size }));
    });
    return;
  }
  response.writeHead(200, {
    'content-type': 'application/octet-stream',
    'content-length': statSync(file).size,
  });
  pipeline(createReadStream(file), response, () => undefined);
});
server.listen(Number(process.env.PORT), '127.0.0.1', () => process.stdout.write('LISTENING\n'));
process.on('SIGTERM', () =>
  server.close(() => {
    rmSync(dir, { recursive: true, force: true });
    process.exit(0);
  }),
);
