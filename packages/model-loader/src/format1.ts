import type { PointerTranslation } from './issues.js';
import { pointerToken } from './issues.js';

export interface Converted {
  /** The file in the current definition format. */
  readonly value: Record<string, unknown>;
  /** Maps pointers into `value` back to the format-1 file as written. */
  readonly pointer: PointerTranslation;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/**
 * Converts a format-1 file to format 2 (model-format section 11): `fields` keyed by name becomes an
 * array of fields with `name`, a relation's `many` becomes `multiple`, a single `extends` string
 * becomes an array. Other kinds only change `version`. Members that are not in the format-1 shape
 * are left alone for the format-2 schema to report.
 */
export function convertFormat1(file: Record<string, unknown>): Converted {
  const value: Record<string, unknown> = { ...file, version: 2 };
  const fieldNames: string[] = [];
  const manyRelations = new Set<number>();
  let extendsWasString = false;
  if (file.kind === 'class') {
    if (isRecord(file.fields)) {
      value.fields = Object.entries(file.fields).map(([name, def]) => {
        fieldNames.push(name);
        return isRecord(def) ? { name, ...def } : def;
      });
    }
    if (Array.isArray(file.relations)) {
      value.relations = file.relations.map((relation: unknown, index) => {
        if (!isRecord(relation) || !('many' in relation)) return relation;
        manyRelations.add(index);
        const { many, ...rest } = relation;
        return { ...rest, multiple: many };
      });
    }
    if (typeof file.extends === 'string') {
      extendsWasString = true;
      value.extends = [file.extends];
    }
  }
  const pointer: PointerTranslation = (p) => {
    const field = /^\/fields\/(\d+)(\/.*)?$/.exec(p);
    if (field && fieldNames.length > 0) {
      const name = fieldNames[Number(field[1])];
      const rest = field[2] === '/name' ? '' : (field[2] ?? '');
      return name === undefined ? p : `/fields/${pointerToken(name)}${rest}`;
    }
    const relation = /^\/relations\/(\d+)\/multiple(\/.*)?$/.exec(p);
    if (relation && manyRelations.has(Number(relation[1]))) {
      return `/relations/${relation[1]}/many${relation[2] ?? ''}`;
    }
    if (extendsWasString && /^\/extends\/0(\/.*)?$/.test(p)) return '/extends';
    return p;
  };
  return { value, pointer };
}
