import type { ErrorObject, ValidateFunction } from 'ajv';
import { Ajv } from 'ajv';
import type { ClassDef, DefaultObject, ListDef, Model, ModelIssue, TenantSettings } from '@odp/core';
import { describeSchemaError, validateMigration } from '@odp/migration-schema';
import { buildAccessControl, buildRoles } from './access.js';
import { BUILT_IN_CLASSES, BUILT_IN_FILE, BUILT_IN_LISTS } from './builtins.js';
import type { ClassInput } from './classes.js';
import { buildClasses, MAX_CLASSES } from './classes.js';
import type {
  AccessControlFile,
  ClassFile,
  DataFile,
  ListFile,
  MigrationFile,
  RolesFile,
  Sourced,
  TenantFile,
} from './files.js';
import { convertFormat1 } from './format1.js';
import { IssueList, pointerToken } from './issues.js';
import type { RepositoryContent, RepositoryFile } from './read.js';
import { MAX_FILES, parseJson, readRepository } from './read.js';
import type { ModelFileKind } from './schemas.js';
import { CURRENT_FORMAT, MODEL_FILE_KINDS, modelFileSchemas } from './schemas.js';

export interface ModelLoadResult {
  /** The resolved model; absent when some issue is an ERROR (the model is refused). */
  readonly model?: Model;
  /** Every issue found, in file order. */
  readonly issues: readonly ModelIssue[];
  /** Repository paths of files in an older definition format. */
  readonly upgradableFiles: readonly string[];
}

/** Schema errors reported per file at most; the rest are summarised in one issue. */
const MAX_SCHEMA_ISSUES_PER_FILE = 50;

const ajv = new Ajv({ allErrors: true, strict: false });
const validators = Object.fromEntries(
  Object.entries(modelFileSchemas).map(([kind, schema]) => [kind, ajv.compile(schema)]),
) as Record<ModelFileKind | 'data', ValidateFunction>;

/**
 * Reads and validates a model repository (docs/model-format.md) in one pass, reading at most
 * `maxBytes` of its files (see `readRepository`). Throws ValidationError only when the directory
 * cannot be read at all; everything else becomes an issue.
 */
export async function loadModelRepository(dir: string, maxBytes?: number): Promise<ModelLoadResult> {
  return buildModel(await readRepository(dir, maxBytes));
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function reportSchemaErrors(file: string, errors: readonly ErrorObject[], issues: IssueList): void {
  for (const error of errors.slice(0, MAX_SCHEMA_ISSUES_PER_FILE)) {
    const { path, message } = describeSchemaError(error);
    issues.error(file, path, message);
  }
  if (errors.length > MAX_SCHEMA_ISSUES_PER_FILE) {
    issues.error(file, '', `${errors.length - MAX_SCHEMA_ISSUES_PER_FILE} more schema errors in this file`);
  }
}

/** A model file read up to its envelope: the JSON object in format 2 and its kind. */
interface Enveloped {
  readonly file: string;
  readonly kind: ModelFileKind;
  readonly value: Record<string, unknown>;
  readonly format: number;
}

/** Parses a file and checks its envelope; converts format 1 in memory. Undefined after an issue. */
export function readEnvelope(file: RepositoryFile, issues: IssueList): Enveloped | undefined {
  if (file.problem !== undefined || file.text === undefined) {
    issues.error(file.path, '', file.problem ?? 'The file cannot be read');
    return undefined;
  }
  const parsed = parseJson(file.text);
  if ('problem' in parsed) {
    issues.error(file.path, '', parsed.problem);
    return undefined;
  }
  const value = parsed.value;
  if (!isRecord(value)) {
    issues.error(file.path, '', "A model file is a JSON object with 'version' and 'kind'");
    return undefined;
  }
  let ok = true;
  const version = value.version;
  if (version === undefined) {
    issues.error(file.path, '', "Missing required property 'version'");
    ok = false;
  } else if (typeof version !== 'number' || !Number.isInteger(version)) {
    issues.error(file.path, '/version', 'Must be an integer');
    ok = false;
  } else if (version !== 1 && version !== CURRENT_FORMAT) {
    issues.error(
      file.path,
      '/version',
      `Definition format ${version} is not supported; this platform reads formats 1 and ${CURRENT_FORMAT}`,
    );
    ok = false;
  }
  const kind = value.kind;
  if (kind === undefined) {
    issues.error(file.path, '', "Missing required property 'kind'");
    return undefined;
  }
  if (kind === 'data') {
    issues.error(file.path, '/kind', 'Default data files belong under data/');
    return undefined;
  }
  if (typeof kind !== 'string' || !(MODEL_FILE_KINDS as readonly string[]).includes(kind)) {
    issues.error(
      file.path,
      '/kind',
      `Unknown kind ${JSON.stringify(kind)}; expected one of ${MODEL_FILE_KINDS.join(', ')}`,
    );
    return undefined;
  }
  if (!ok) return undefined;
  if (version === 1) {
    const converted = convertFormat1(value);
    issues.translate(file.path, converted.pointer);
    return { file: file.path, kind: kind as ModelFileKind, value: converted.value, format: 1 };
  }
  return { file: file.path, kind: kind as ModelFileKind, value, format: CURRENT_FORMAT };
}

/** Names declared by files that failed their schema: references to them are not reported again. */
interface Broken {
  readonly classes: Set<string>;
  readonly lists: Set<string>;
  readonly definitions: Set<string>;
}

/** Builds the model from repository content already read; see loadModelRepository. */
export function buildModel(content: RepositoryContent): ModelLoadResult {
  const issues = new IssueList();
  const upgradableFiles: string[] = [];
  if (content.truncated) {
    issues.error('', '', `The repository holds more than ${MAX_FILES} files; the rest were not read`);
  }
  const broken: Broken = { classes: new Set(), lists: new Set(), definitions: new Set() };
  const byKind = {
    class: [] as Sourced<ClassFile>[],
    list: [] as Sourced<ListFile>[],
    accessControl: [] as Sourced<AccessControlFile>[],
    roles: [] as Sourced<RolesFile>[],
    tenant: [] as Sourced<TenantFile>[],
    migration: [] as Sourced<MigrationFile>[],
  };
  for (const file of content.modelFiles) {
    const enveloped = readEnvelope(file, issues);
    if (!enveloped) continue;
    if (enveloped.format < CURRENT_FORMAT) upgradableFiles.push(enveloped.file);
    const validate = validators[enveloped.kind];
    if (!validate(enveloped.value)) {
      reportSchemaErrors(enveloped.file, validate.errors ?? [], issues);
      const name = (key: string) => (typeof enveloped.value[key] === 'string' ? [enveloped.value[key]] : []);
      if (enveloped.kind === 'class') name('class').forEach((n) => broken.classes.add(n));
      if (enveloped.kind === 'list') name('list').forEach((n) => broken.lists.add(n));
      if (enveloped.kind === 'accessControl') name('name').forEach((n) => broken.definitions.add(n));
      continue;
    }
    (byKind[enveloped.kind] as Sourced<unknown>[]).push({ file: enveloped.file, doc: enveloped.value });
  }

  const lists = buildLists(byKind.list, issues);
  const templates = new Map<string, string>();
  for (const file of content.templateFiles) {
    if (file.text === undefined) issues.error(file.path, '', file.problem ?? 'The file cannot be read');
    else templates.set(file.path, file.text);
  }

  if (byKind.class.length + broken.classes.size > MAX_CLASSES) {
    const first = byKind.class[MAX_CLASSES]?.file ?? byKind.class[0]?.file ?? '';
    issues.error(
      first,
      '',
      `The model defines ${byKind.class.length + broken.classes.size} classes; at most ${MAX_CLASSES} are supported`,
    );
    return { issues: issues.all, upgradableFiles };
  }
  const inputs: ClassInput[] = [
    ...BUILT_IN_CLASSES.map((doc) => ({ file: BUILT_IN_FILE, doc, system: true })),
    ...byKind.class.map((s) => ({ ...s, system: false })),
  ];
  const { classes, byPlural } = buildClasses(
    inputs,
    broken.classes,
    lists,
    broken.lists,
    new Set(templates.keys()),
    issues,
  );
  const accessControl = buildAccessControl(byKind.accessControl, classes, broken.classes, issues);
  const roles = buildRoles(byKind.roles, accessControl, broken.definitions, issues);
  const settings = buildSettings(byKind.tenant, byPlural, issues);

  const [migrationFile, ...extraMigrations] = byKind.migration;
  for (const extra of extraMigrations) {
    issues.error(extra.file, '', `Only one migration file is allowed; the first is ${migrationFile?.file}`);
  }
  const model: Model = {
    classes,
    byPlural,
    lists,
    accessControl,
    roles,
    settings,
    defaultData: buildDefaultData(content.dataFiles, classes, byPlural, issues),
    ...(migrationFile ? { migration: migrationFile.doc.migration } : {}),
    templates,
  };
  if (migrationFile) {
    issues.info(migrationFile.file, '', 'Migration is a beta feature, outside the compatibility guarantee');
    for (const issue of validateMigration(migrationFile.doc.migration, model)) {
      issues.add(issue.severity, migrationFile.file, `/migration${issue.path}`, issue.message);
    }
  }
  return issues.hasErrors
    ? { issues: issues.all, upgradableFiles }
    : { model, issues: issues.all, upgradableFiles };
}

function buildLists(sources: readonly Sourced<ListFile>[], issues: IssueList): Map<string, ListDef> {
  const lists = new Map<string, ListDef>(BUILT_IN_LISTS.map((l) => [l.name, l]));
  const fileOf = new Map<string, string>();
  for (const { file, doc } of sources) {
    if (doc.list.startsWith('system.')) {
      issues.error(file, '/list', `The package 'system' is reserved for built-in lists`);
      continue;
    }
    const earlier = fileOf.get(doc.list);
    if (earlier !== undefined) {
      issues.error(file, '/list', `List ${doc.list} is already defined in ${earlier}`);
      continue;
    }
    fileOf.set(doc.list, file);
    const keys = new Set<string>();
    doc.values.forEach((value, i) => {
      if (keys.has(value.key)) issues.error(file, `/values/${i}/key`, `Key '${value.key}' is used twice`);
      keys.add(value.key);
    });
    lists.set(doc.list, { name: doc.list, values: doc.values });
  }
  return lists;
}

function buildSettings(
  sources: readonly Sourced<TenantFile>[],
  byPlural: ReadonlyMap<string, ClassDef>,
  issues: IssueList,
): TenantSettings {
  const [first, ...extra] = sources;
  for (const { file } of extra) {
    issues.error(file, '', `Only one tenant file is allowed; the first is ${first?.file}`);
  }
  if (!first) return {};
  const classes = first.doc.generalSearchClasses;
  classes?.forEach((plural, i) => {
    const cls = byPlural.get(plural);
    if (!cls || cls.system) {
      issues.error(first.file, `/generalSearchClasses/${i}`, `Unknown class plural '${plural}'`);
    }
  });
  return classes === undefined ? {} : { generalSearchClasses: classes };
}

const HREF = /^\/data\/\{tenant\}\/([a-zA-Z0-9]+)\/([0-9a-f-]{36})$/;

function buildDefaultData(
  files: readonly RepositoryFile[],
  classes: ReadonlyMap<string, ClassDef>,
  byPlural: ReadonlyMap<string, ClassDef>,
  issues: IssueList,
): DefaultObject[] {
  const objects: DefaultObject[] = [];
  const ids = new Map<string, string>();
  const validate = validators.data;
  for (const file of files) {
    if (file.text === undefined) {
      issues.error(file.path, '', file.problem ?? 'The file cannot be read');
      continue;
    }
    const parsed = parseJson(file.text);
    if ('problem' in parsed) {
      issues.error(file.path, '', parsed.problem);
      continue;
    }
    if (!validate(parsed.value)) {
      reportSchemaErrors(file.path, validate.errors ?? [], issues);
      continue;
    }
    (parsed.value as DataFile).objects.forEach((object, i) => {
      const at = `/objects/${i}`;
      const { _class: plural, _id: id, ...body } = object;
      const cls = byPlural.get(plural);
      if (!cls || cls.system || cls.abstract || cls.attachableTo) {
        issues.error(
          file.path,
          `${at}/_class`,
          cls ? `Objects cannot be created as ${plural}` : `Unknown class plural '${plural}'`,
        );
        return;
      }
      const earlier = ids.get(id);
      if (earlier !== undefined) {
        issues.error(file.path, `${at}/_id`, `Object id ${id} is already used in ${earlier}`);
        return;
      }
      ids.set(id, file.path);
      for (const [key, value] of Object.entries(body)) {
        const path = `${at}/${pointerToken(key)}`;
        const end = cls.relations.get(key);
        if (!cls.fields.has(key) && !end) {
          issues.warning(
            file.path,
            path,
            `Class ${cls.name} has no field or relation '${key}'; it is ignored`,
          );
          continue;
        }
        if (!end) continue;
        const hrefs = end.multiple && Array.isArray(value) ? value : [value];
        if (
          end.multiple !== Array.isArray(value) ||
          hrefs.some((h) => !isHrefTo(h, end.otherClass, classes, byPlural))
        ) {
          issues.error(
            file.path,
            path,
            `Relation '${key}' takes ${end.multiple ? 'an array of hrefs' : 'one href'} '/data/{tenant}/<plural>/<id>' of ${end.otherClass} objects`,
          );
        }
      }
      objects.push({ file: file.path, plural, id, body });
    });
  }
  return objects;
}

/** Whether `href` addresses an object that is, or can gain, class `target` (a role class). */
function isHrefTo(
  href: unknown,
  target: string,
  classes: ReadonlyMap<string, ClassDef>,
  byPlural: ReadonlyMap<string, ClassDef>,
): boolean {
  const plural = typeof href === 'string' ? HREF.exec(href)?.[1] : undefined;
  const cls = plural === undefined ? undefined : byPlural.get(plural);
  const targetDef = classes.get(target);
  if (!cls || !targetDef) return false;
  return (
    cls.ancestors.includes(target) || (targetDef.attachableTo ?? []).some((a) => cls.ancestors.includes(a))
  );
}
