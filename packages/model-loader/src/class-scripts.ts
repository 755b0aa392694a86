/**
 * A script of a class file as ScriptDefs: its trigger, its gateway and parameters checked, its
 * formulas parsed.
 */
import type { Formula, ScriptDef, ScriptParameter } from '@odp/core';
import type { ScriptFile } from './files.js';
import type { IssueList } from './issues.js';
import { pointerToken } from './issues.js';
import type { ParseAt } from './class-fields.js';

/** Gateways whose contract is beta: using them gives an INFO issue. */
const BETA_GATEWAYS: ReadonlySet<string> = new Set(['Mail', 'UserInvitation']);
/** Required parameters per gateway (interface spec, Events). */
const REQUIRED_PARAMETERS: Readonly<Record<string, readonly string[]>> = {
  Webhook: ['url'],
  DatastoreReplicator: ['_type', '_projectId', '_dataset', '_table', '_credentials'],
};

export function scriptDef(
  script: ScriptFile,
  className: string,
  file: string,
  at: string,
  templates: ReadonlySet<string>,
  issues: IssueList,
  parseAt: ParseAt,
): ScriptDef[] {
  const condition =
    script.condition === undefined
      ? undefined
      : parseAt(script.condition, file, `${at}/condition`, className);
  const common = {
    name: script.name,
    trigger: script.trigger,
    declaredOn: className,
    ...(condition ? { condition } : {}),
  };
  if (script.type === 'SET_VALUES') {
    if (script.set === undefined) {
      issues.error(file, at, `A SET_VALUES script needs 'set'`);
      return [];
    }
    const set: Record<string, Formula> = {};
    for (const [fieldName, source] of Object.entries(script.set)) {
      const formula = parseAt(source, file, `${at}/set/${pointerToken(fieldName)}`, className);
      if (formula) set[fieldName] = formula;
    }
    return [{ type: 'SET_VALUES', ...common, set }];
  }
  if (script.gateway === undefined) {
    issues.error(file, at, `A CONSUMER_GATEWAY script needs 'gateway'`);
    return [];
  }
  if (BETA_GATEWAYS.has(script.gateway)) {
    issues.info(file, `${at}/gateway`, `Gateway ${script.gateway} is beta: its contract may still change`);
  }
  if (script.gateway === 'DatastoreReplicator' && script.trigger.includes('MANUAL')) {
    issues.error(
      file,
      `${at}/trigger`,
      'DatastoreReplicator supports the triggers CREATE, UPDATE and DELETE',
    );
  }
  const parameters = (script.parameters ?? []).map((p, j): ScriptParameter => {
    const path = `${at}/parameters/${j}`;
    if (p.templateFile !== undefined && !templates.has(p.templateFile)) {
      issues.error(file, `${path}/templateFile`, `Template '${p.templateFile}' is not in the repository`);
    }
    const formula =
      p.formula === undefined ? undefined : parseAt(p.formula, file, `${path}/formula`, className);
    return {
      name: p.name,
      ...(p.value === undefined ? {} : { value: p.value }),
      ...(formula ? { formula } : {}),
      ...(p.templateFile === undefined ? {} : { templateFile: p.templateFile }),
    };
  });
  for (const required of REQUIRED_PARAMETERS[script.gateway] ?? []) {
    if (!parameters.some((p) => p.name === required)) {
      issues.error(file, `${at}/parameters`, `Gateway ${script.gateway} needs the parameter '${required}'`);
    }
  }
  return [{ type: 'CONSUMER_GATEWAY', ...common, gateway: script.gateway, scope: 'OBJECT', parameters }];
}
