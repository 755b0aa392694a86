import { EXTERNAL_SERVICES } from '@odp/core';
import type { ListDef } from '@odp/core';
import type { ClassFile } from './files.js';

/** Where issues and `declaredOn` of built-in definitions point: they are in no repository file. */
export const BUILT_IN_FILE = '(built-in)';

/** Lists present in every tenant (model-format section 5). */
export const BUILT_IN_LISTS: readonly ListDef[] = [
  {
    name: 'system.profileRole',
    values: [
      { key: 'admin', label: 'Administrator' },
      { key: 'member', label: 'Member' },
      { key: 'viewer', label: 'Viewer' },
    ],
  },
  {
    name: 'system.externalService',
    values: EXTERNAL_SERVICES,
  },
];

/** Classes present in every tenant (model-format section 13); readable only under `/system/...`. */
export const BUILT_IN_CLASSES: readonly ClassFile[] = [
  {
    version: 2,
    kind: 'class',
    class: 'system.serviceCallLog',
    fields: [
      { name: 'service', type: 'LIST', list: 'system.externalService', required: true },
      { name: 'timestamp', type: 'DATETIME', required: true },
      { name: 'success', type: 'BOOLEAN', required: true },
      { name: 'costUnits', type: 'INTEGER' },
      { name: 'costUnit', type: 'TEXT' },
      { name: 'cost', type: 'CURRENCY' },
      { name: 'costLocal', type: 'CURRENCY' },
      { name: 'reference', type: 'TEXT' },
    ],
  },
  {
    version: 2,
    kind: 'class',
    class: 'system.logEntry',
    fields: [
      { name: 'category', type: 'TEXT', required: true },
      { name: 'level', type: 'TEXT', required: true },
      { name: 'message', type: 'TEXTBLOCK' },
      { name: 'gateway', type: 'TEXT' },
      { name: 'reference', type: 'TEXT' },
      { name: 'details', type: 'JSON' },
      { name: 'timestamp', type: 'DATETIME' },
    ],
  },
  {
    version: 2,
    kind: 'class',
    class: 'system.secretValue',
    nameFormula: 'name',
    fields: [
      { name: 'name', type: 'TEXT', required: true, unique: true },
      { name: 'secretValue', type: 'SECRET', required: true },
    ],
  },
  {
    version: 2,
    kind: 'class',
    class: 'system.systemSetting',
    nameFormula: 'name',
    fields: [
      { name: 'name', type: 'TEXT', required: true, unique: true },
      { name: 'value', type: 'TEXT' },
    ],
  },
];
