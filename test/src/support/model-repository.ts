/** Changes to a copy of a model repository, for the suites that store new model versions. */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/** Adds a TEXT field `name` to crm.company in the model repository `dir` (a copy of the CRM example). */
export function addCompanyField(dir: string, name: string): void {
  const file = path.join(dir, 'classes/crm/company.json');
  const definition = JSON.parse(readFileSync(file, 'utf8')) as { fields: object[] };
  definition.fields.push({ name, type: 'TEXT' });
  writeFileSync(file, JSON.stringify(definition));
}
