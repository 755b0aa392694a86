/**
 * Child process of tenant-durability.test.ts: creates companies one `write` at a time (each with an
 * ACL row and an event, so every derived table and the full-text index are written), printing
 * `ACK <n>` once write n is acknowledged, until the parent kills it with SIGKILL.
 */
import { contractModel, storedObject } from '@odp/testkit';
import { openSqliteTenantStore } from './store.js';

const file = process.argv[2];
if (file === undefined) throw new Error('usage: tenant-durability.child.ts <database file>');
const store = openSqliteTenantStore({ file });
await store.applyModel(contractModel);
for (let n = 1; ; n++) {
  const object = storedObject({
    n,
    basicClass: 'ct.company',
    name: `Durable ${n}`,
    values: { employees: n },
  });
  await store.write({
    put: [object],
    aclRows: [{ objectId: object.id, rows: [{ acId: `ac-${n}`, nodeId: object.id, definition: 'owner' }] }],
    events: [{ type: 'create', objectId: object.id, classes: object.classes, at: object.createdAt }],
  });
  process.stdout.write(`ACK ${n}\n`);
  // Let the parent's kill land at any point of the stream of writes, not only between bursts.
  if (n % 25 === 0) await new Promise((resolve) => setImmediate(resolve));
}
