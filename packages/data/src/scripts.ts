/**
 * CONSUMER_GATEWAY scripts (model-format section 7, interface spec "Script triggers"): on a
 * trigger, each script of the object's classes whose `condition` holds becomes one background job
 * carrying its parameters by value, resolved now against the pending state of the write (relation
 * paths included). The job is added to the write's unit of work, so it is stored in the tenant
 * outbox in the same transaction as the write (a refused write queues nothing).
 */
import { randomUUID } from 'node:crypto';
import Handlebars from 'handlebars';
import { evaluate, toText } from '@odp/formulas';
import type {
  Model,
  NewJob,
  ScriptDef,
  ScriptParameter,
  ScriptTrigger,
  StoredObject,
  WarehouseColumnType,
} from '@odp/core';
import type { ComputeEnvironment, Draft } from './compute.js';
import { isConnectionParameter, replicationColumns } from './replication-columns.js';
import { formulaRecord, objectHref } from './compute.js';
import { HISTORY_KEY } from './history.js';
import type { SecretCipher } from './secret-cipher.js';
import type { UnitOfWork } from './unit-of-work.js';

export type GatewayScript = Extract<ScriptDef, { type: 'CONSUMER_GATEWAY' }>;

/** The job kind of a gateway call; its payload is a {@link GatewayJobPayload}. */
export const GATEWAY_JOB = 'gateway';

/** What a gateway job carries: everything the worker needs, without reading the object again. */
export interface GatewayJobPayload {
  readonly gateway: GatewayScript['gateway'];
  readonly script: string;
  /** Qualified BASIC class of the object. */
  readonly className: string;
  readonly trigger: ScriptTrigger;
  /** `/data/{tenant}/{plural}/{id}` of the object. */
  readonly href: string;
  /**
   * Parameter values by name, as text (null when a formula had no value). Absent when a parameter
   * read a secret value: then `sealedParameters` holds them, encrypted like SECRET fields.
   */
  readonly parameters?: Readonly<Record<string, string | null>>;
  /** The parameters as JSON, encrypted with the deployment's secret key (see `unsealParameters`). */
  readonly sealedParameters?: string;
  /** Mail only: the `body` parameter is HTML as the model wrote it (see `authoredHtml`); absent: text. */
  readonly htmlBody?: true;
  /**
   * DatastoreReplicator only: the warehouse type of each column parameter (none on DELETE, which
   * evaluates no field formula), and whether `_credentials` was read from a `system.secretValue`
   * (the only source the gateway accepts for it).
   */
  readonly replication?: {
    readonly columns: Readonly<Record<string, WarehouseColumnType>>;
    readonly credentialsFromSecret: boolean;
  };
}

/**
 * The parameters of a gateway job payload: as they are, or decrypted from `sealedParameters` with
 * `cipher`. Null when sealed parameters cannot be decrypted with it.
 */
export function unsealParameters(
  payload: Readonly<Record<string, unknown>>,
  cipher: SecretCipher,
): Record<string, string | null> | null {
  const source =
    typeof payload['sealedParameters'] === 'string'
      ? cipher.decrypt(payload['sealedParameters'])
      : JSON.stringify(payload['parameters'] ?? {});
  if (source === null) return null;
  const parsed = JSON.parse(source) as Record<string, unknown>;
  const parameters: Record<string, string | null> = {};
  for (const [name, value] of Object.entries(parsed))
    parameters[name] = typeof value === 'string' ? value : null;
  return parameters;
}

/** The gateway scripts of the object's classes that fire on `trigger`, each once, declaration order. */
export function gatewayScripts(
  model: Model,
  classes: readonly string[],
  trigger: ScriptTrigger,
): GatewayScript[] {
  const seen = new Set<string>();
  const scripts: GatewayScript[] = [];
  for (const name of classes) {
    for (const script of model.classes.get(name)?.scripts ?? []) {
      const key = `${script.declaredOn}#${script.name}`;
      if (script.type !== 'CONSUMER_GATEWAY' || !script.trigger.includes(trigger) || seen.has(key)) continue;
      seen.add(key);
      scripts.push(script);
    }
  }
  return scripts;
}

const templates = new Map<string, HandlebarsTemplateDelegate>();

/** Markup in a template or a literal value: the model wrote HTML. */
const MARKUP = /<\/?[a-z][\s\S]*>/i;

/**
 * Whether a parameter is HTML by its authoring: a template or a literal value with markup. A
 * formula's result is data, so it is text. Decided from the model, before any value is put in, so
 * markup inside an object's values never turns a Mail gateway's e-mail into HTML.
 */
function authoredHtml(env: ComputeEnvironment, parameter: ScriptParameter): boolean {
  if (parameter.value !== undefined) return MARKUP.test(parameter.value);
  if (parameter.templateFile) return MARKUP.test(env.model.templates.get(parameter.templateFile) ?? '');
  return false;
}

/**
 * Renders a `templateFile` parameter with the object's values (and `_href`, `_id`) as context.
 * `html` (an HTML template of the Mail gateway, sent as an HTML e-mail): values are HTML-escaped
 * (`{{ }}`; `{{{ }}}` is raw where the template says so); otherwise the result is text, rendered
 * as is.
 */
function renderTemplate(
  env: ComputeEnvironment,
  object: Draft | StoredObject,
  file: string,
  html: boolean,
): string | null {
  const source = env.model.templates.get(file);
  if (source === undefined) return null;
  const key = `${html}\u0000${source}`;
  let template = templates.get(key);
  if (template === undefined) {
    template = Handlebars.create().compile(source, { noEscape: !html });
    templates.set(key, template);
  }
  const context: Record<string, unknown> = { ...object.values };
  delete context[HISTORY_KEY];
  return template({ ...context, _href: objectHref(env.model, env.tenantId, object), _id: object.id });
}

/**
 * One job per script of `scripts` whose condition holds for `object`, with its parameters
 * resolved. `now` stamps the jobs (the unit of work's time).
 */
export async function gatewayJobs(
  baseEnv: ComputeEnvironment,
  uow: UnitOfWork,
  object: Draft | StoredObject,
  scripts: readonly GatewayScript[],
  trigger: ScriptTrigger,
  /** The decrypted `system.secretValue` of a name, which `systemSetting()` falls back to here. */
  secretValue?: (name: string) => Promise<string | null>,
): Promise<NewJob[]> {
  let readSecret = false;
  const plain = baseEnv.systemSetting;
  const env: ComputeEnvironment = {
    ...baseEnv,
    systemSetting: async (name) => {
      const setting = plain ? await plain(name) : null;
      if (setting !== null || !secretValue) return setting;
      const secret = await secretValue(name);
      if (secret !== null) readSecret = true;
      return secret;
    },
  };
  const context = { ...env, record: formulaRecord(env, uow, object) };
  const jobs: NewJob[] = [];
  for (const script of scripts) {
    readSecret = false;
    // A replicated object that is deleted is removed from the warehouse whatever its values were:
    // on DELETE only the connection parameters are resolved (interface spec, rule 1).
    const replicatedDelete = script.gateway === 'DatastoreReplicator' && trigger === 'DELETE';
    if (!replicatedDelete && script.condition && !(await evaluate(script.condition, context))) continue;
    const parameters: Record<string, string | null> = {};
    let credentialsFromSecret = false;
    for (const parameter of script.parameters) {
      if (replicatedDelete && !isConnectionParameter(parameter.name)) continue;
      const secretBefore: boolean = readSecret;
      readSecret = false;
      if (parameter.value !== undefined) parameters[parameter.name] = parameter.value;
      else if (parameter.formula)
        parameters[parameter.name] = toText(await evaluate(parameter.formula, context));
      else if (parameter.templateFile)
        parameters[parameter.name] = renderTemplate(
          env,
          object,
          parameter.templateFile,
          script.gateway === 'Mail' && authoredHtml(env, parameter),
        );
      if (parameter.name === '_credentials') credentialsFromSecret = readSecret;
      readSecret = readSecret || secretBefore;
    }
    const body = script.parameters.find((parameter) => parameter.name === 'body');
    const sealed = readSecret && env.secrets ? env.secrets.encrypt(JSON.stringify(parameters)) : null;
    const payload: GatewayJobPayload = {
      gateway: script.gateway,
      script: script.name,
      className: object.basicClass,
      trigger,
      href: objectHref(env.model, env.tenantId, object),
      ...(sealed === null ? { parameters } : { sealedParameters: sealed }),
      ...(script.gateway === 'Mail' && body !== undefined && authoredHtml(env, body)
        ? { htmlBody: true }
        : {}),
      ...(script.gateway === 'DatastoreReplicator'
        ? {
            replication: {
              columns: replicatedDelete ? {} : replicationColumns(env.model, script),
              credentialsFromSecret,
            },
          }
        : {}),
    };
    jobs.push({
      id: randomUUID(),
      tenantId: env.tenantId,
      kind: GATEWAY_JOB,
      objectId: object.id,
      payload: { ...payload },
      createdAt: uow.timestamp,
    });
  }
  return jobs;
}
