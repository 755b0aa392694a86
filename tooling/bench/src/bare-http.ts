/**
 * Child process: the physical HTTP ceiling. Bare `node:http` answering a fixed JSON body on PORT of
 * 127.0.0.1; prints `LISTENING` when it accepts requests.
 */
import { createServer } from 'node:http';

const body = process.env.BENCH_BODY ?? '{}';
const server = createServer((_request, response) => {
  response.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
  response.end(body);
});
server.listen(Number(process.env.PORT), '127.0.0.1', () => process.stdout.write('LISTENING\n'));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
