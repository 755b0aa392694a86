import type { ErrorObject } from 'ajv';
import { Ajv } from 'ajv';
import type { IssueSeverity, Model, RelationEnd } from '@odp/core';
import type { MigrationDefinition } from './schema.js';
import { migrationDefinitionSchema } from './schema.js';

/** A finding in a migration definition; `path` is a JSON pointer into the definition. */
export interface MigrationIssue {
  readonly severity: IssueSeverity;
  readonly path: string;
  readonly message: string;
}

/** Turns one ajv error into a JSON pointer and a sentence naming the offending member. */
export function describeSchemaError(error: ErrorObject): { path: string; message: string } {
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'required':
      return {
        path: error.instancePath,
        message: `Missing required property '${String(params.missingProperty)}'`,
      };
    case 'additionalProperties':
      return {
        path: `${error.instancePath}/${String(params.additionalProperty)}`,
        message: `Unknown property '${String(params.additionalProperty)}'`,
      };
    case 'enum':
      return {
        path: error.instancePath,
        message: `Must be one of ${(params.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')}`,
      };
    default:
      return { path: error.instancePath, message: capitalized(error.message ?? 'must match the schema') };
  }
}

const ajv = new Ajv({ allErrors: true, strict: false });
const validateSchema = ajv.compile<MigrationDefinition>(migrationDefinitionSchema);

/**
 * Validates a migration definition: first its shape against the JSON Schema, then, when `model` is
 * given, every class, field and relation it names, and always the deferred-relation rules of the
 * interface specification:
 * - rows of one step are created in arbitrary order, so a relation to a class that the same step or a
 *   later step creates must be `deferred` (resolved by PATCH after every step ran);
 * - a deferred relation cannot be `required` on its class (the create would be refused without it);
 * - `multiple` must match the relation's multiplicity (it decides whether the PATCH sends an array);
 * - `mnRelations` connect two classes through a multi-valued relation, not through a row column.
 */
export function validateMigration(definition: unknown, model?: Model): MigrationIssue[] {
  if (!validateSchema(definition)) {
    return (validateSchema.errors ?? []).map((e) => ({ severity: 'ERROR', ...describeSchemaError(e) }));
  }
  const issues: MigrationIssue[] = [];
  const error = (path: string, message: string) => issues.push({ severity: 'ERROR', path, message });
  const classExists = (name: string, path: string): boolean => {
    if (!model || model.classes.has(name)) return true;
    error(path, `Unknown class '${name}'`);
    return false;
  };
  /** Whether objects of `created` are objects of `target` (same class or a subclass). */
  const isA = (created: string, target: string): boolean =>
    model ? (model.classes.get(created)?.ancestors.includes(target) ?? false) : created === target;

  definition.steps.forEach((step, i) => {
    const stepPath = `/steps/${i}`;
    const cls = classExists(step.target, `${stepPath}/target`) ? model?.classes.get(step.target) : undefined;
    if (cls?.abstract)
      error(`${stepPath}/target`, `Class ${cls.name} is abstract; no object is created as it`);
    if (cls?.attachableTo) {
      error(`${stepPath}/target`, `Class ${cls.name} is a role class; no object is created as it`);
    }
    if (cls) {
      step.fields.forEach((field, j) => {
        if (!cls.fields.has(field.target)) {
          error(`${stepPath}/fields/${j}/target`, `Class ${cls.name} has no field '${field.target}'`);
        }
      });
    }
    step.relations.forEach((mapping, k) => {
      const path = `${stepPath}/relations/${k}`;
      if (!classExists(mapping.target, `${path}/target`)) return;
      const creator = definition.steps.findIndex((s, index) => index >= i && isA(s.target, mapping.target));
      if (!mapping.deferred && creator >= 0) {
        error(
          `${path}/deferred`,
          creator === i
            ? `Relation to ${mapping.target} must be deferred: rows of one step are created in arbitrary order`
            : `Relation to ${mapping.target} must be deferred: its objects are created in a later step (${creator})`,
        );
      }
      if (!cls || !model) return;
      const ends = [...cls.relations.values()].filter(
        (end) => end.direction === 'forward' && isA(mapping.target, end.otherClass),
      );
      const [end] = ends;
      if (end === undefined) {
        error(`${path}/target`, `Class ${cls.name} has no relation to ${mapping.target}`);
        return;
      }
      if (ends.length > 1) {
        error(
          `${path}/target`,
          `Class ${cls.name} has several relations to ${mapping.target} (${names(ends)}); the mapping is ambiguous`,
        );
        return;
      }
      if ((mapping.multiple ?? false) !== end.multiple) {
        error(
          `${path}/multiple`,
          `Relation '${end.name}' is ${end.multiple ? 'multi' : 'single'}-valued; multiple must be ${end.multiple}`,
        );
      }
      if (mapping.deferred && end.relation.required) {
        error(
          `${path}/deferred`,
          `Relation '${end.name}' is required, so it cannot be deferred: the create would be refused without it`,
        );
      }
    });
  });

  (definition.mnRelations ?? []).forEach((mn, m) => {
    const path = `/mnRelations/${m}`;
    const fromOk = classExists(mn.targetFrom, `${path}/targetFrom`);
    const toOk = classExists(mn.targetTo, `${path}/targetTo`);
    if (!model || !fromOk || !toOk) return;
    const connects = (from: string, to: string) =>
      [...(model.classes.get(from)?.relations.values() ?? [])].some(
        (end) => end.direction === 'forward' && end.multiple && isA(to, end.otherClass),
      );
    if (!connects(mn.targetFrom, mn.targetTo) && !connects(mn.targetTo, mn.targetFrom)) {
      error(path, `No multi-valued relation connects ${mn.targetFrom} and ${mn.targetTo}`);
    }
  });
  return issues;
}

function capitalized(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

function names(ends: readonly RelationEnd[]): string {
  return ends.map((e) => e.name).join(', ');
}
