import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/**
 * Gives the company class of a copy of the crm example model (`modelDir`) one DatastoreReplicator
 * script on CREATE, UPDATE and DELETE into `target`, its project and credentials read from the
 * system settings `warehouseProject` and `warehouseCredentials`, with `columns` after the
 * connection parameters (a `_flushInterval` among them sets the interval).
 */
export function addCompanyReplicator(
  modelDir: string,
  target: { readonly dataset: string; readonly table: string },
  columns: readonly Record<string, string>[],
): void {
  const file = path.join(modelDir, 'classes/crm/company.json');
  const company = JSON.parse(readFileSync(file, 'utf8')) as { scripts?: unknown[] };
  company.scripts = [
    {
      name: 'replicateCompany',
      type: 'CONSUMER_GATEWAY',
      gateway: 'DatastoreReplicator',
      scope: 'OBJECT',
      trigger: ['CREATE', 'UPDATE', 'DELETE'],
      parameters: [
        { name: '_type', value: 'WAREHOUSE' },
        { name: '_projectId', formula: "systemSetting('warehouseProject')" },
        { name: '_dataset', value: target.dataset },
        { name: '_table', value: target.table },
        { name: '_credentials', formula: "systemSetting('warehouseCredentials')" },
        ...columns,
      ],
    },
  ];
  writeFileSync(file, JSON.stringify(company));
}
