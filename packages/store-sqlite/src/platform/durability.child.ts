/**
 * Child process of platform-durability.test.ts: creates one tenant, prints `ACK <id>` once the
 * write is acknowledged, then idles until the parent kills it with SIGKILL.
 */
import { openSqlitePlatformRegistry } from './registry.js';

const file = process.argv[2];
if (file === undefined) throw new Error('usage: platform-durability.child.ts <database file>');
const store = openSqlitePlatformRegistry(file);
const tenant = await store.createTenant({ name: 'durable', modelSource: null });
process.stdout.write(`ACK ${tenant.id}\n`);
setInterval(() => undefined, 1000);
