/**
 * The warehouse columns of a DatastoreReplicator script (interface spec, rules 2 and 3): every
 * parameter whose name does not start with `_` is a column, typed by what its formula yields. A
 * formula that reads one field (also through single-valued relations, `client.revenue`) takes
 * the field's type: INTEGER is INT64; DECIMAL, CURRENCY and PERCENTAGE are NUMERIC; BOOLEAN is
 * BOOL; DATE, DATETIME and TIME are DATE, TIMESTAMP and TIME. Another formula takes the type the
 * formula checker infers (a number is NUMERIC); values, templates, multiple values and everything
 * else are STRING. The `id` column is the object's id and cannot be set by a parameter.
 */
import { checkFormula } from '@odp/formulas';
import type { FormulaBaseType } from '@odp/formulas';
import type { DataType, FieldDef, FormulaNode, Model, ScriptDef, WarehouseColumnType } from '@odp/core';

const OF_FIELD: Partial<Record<DataType, WarehouseColumnType>> = {
  INTEGER: 'INT64',
  DECIMAL: 'NUMERIC',
  CURRENCY: 'NUMERIC',
  PERCENTAGE: 'NUMERIC',
  BOOLEAN: 'BOOL',
  DATE: 'DATE',
  DATETIME: 'TIMESTAMP',
  TIME: 'TIME',
};

const OF_FORMULA: Partial<Record<FormulaBaseType, WarehouseColumnType>> = {
  number: 'NUMERIC',
  boolean: 'BOOL',
  date: 'DATE',
  datetime: 'TIMESTAMP',
  time: 'TIME',
};

/** `_type`, `_projectId`, `_dataset`, `_table`, `_credentials`, `_flushInterval`: not columns. */
export function isConnectionParameter(name: string): boolean {
  return name.startsWith('_');
}

/** The single field a formula reads (through single-valued relations only), or null. */
function fieldRead(model: Model, className: string, node: FormulaNode): FieldDef | null {
  const classOf = (path: FormulaNode): string | null => {
    if (path.kind === 'identifier') {
      const relation = model.classes.get(className)?.relations.get(path.name);
      return relation && !relation.multiple ? relation.otherClass : null;
    }
    if (path.kind !== 'member') return null;
    const owner = classOf(path.object);
    const relation = owner === null ? undefined : model.classes.get(owner)?.relations.get(path.property);
    return relation && !relation.multiple ? relation.otherClass : null;
  };
  if (node.kind === 'identifier') return model.classes.get(className)?.fields.get(node.name) ?? null;
  if (node.kind !== 'member') return null;
  const owner = classOf(node.object);
  return owner === null ? null : (model.classes.get(owner)?.fields.get(node.property) ?? null);
}

/** The column types of the script's column parameters, by name. */
export function replicationColumns(
  model: Model,
  script: Extract<ScriptDef, { type: 'CONSUMER_GATEWAY' }>,
): Record<string, WarehouseColumnType> {
  const columns: Record<string, WarehouseColumnType> = {};
  for (const parameter of script.parameters) {
    if (isConnectionParameter(parameter.name) || parameter.name === 'id') continue;
    let type: WarehouseColumnType = 'STRING';
    if (parameter.formula) {
      const field = fieldRead(model, script.declaredOn, parameter.formula.ast);
      if (field) type = field.multiple ? 'STRING' : (OF_FIELD[field.type] ?? 'STRING');
      else {
        const inferred = checkFormula(parameter.formula, model.classes, script.declaredOn).type;
        type = inferred.array ? 'STRING' : (OF_FORMULA[inferred.base] ?? 'STRING');
      }
    }
    columns[parameter.name] = type;
  }
  return columns;
}
