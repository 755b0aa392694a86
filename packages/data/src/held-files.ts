import type { FieldDef, Model, StoredFile, StoredObject } from '@odp/core';
import { fieldsOf } from './classes.js';
import { storedFiles } from './encode.js';

/** The files an object holds, per FILE or IMAGE field of its classes. */
export function filesByField(
  model: Model,
  object: Pick<StoredObject, 'classes' | 'values'>,
): [FieldDef, StoredFile[]][] {
  const result: [FieldDef, StoredFile[]][] = [];
  for (const field of fieldsOf(model, object.classes).values()) {
    if (field.type === 'FILE' || field.type === 'IMAGE')
      result.push([field, storedFiles(object.values[field.name])]);
  }
  return result;
}
