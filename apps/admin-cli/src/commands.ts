import { existsSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Writable } from 'node:stream';
import { randomUUID } from 'node:crypto';
import type { ParseArgsConfig } from 'node:util';
import { defaultDataRequestKey, AppError, isProfileActive, rebuildRequestKey, TENANT_ROLES } from '@odp/core';
import type { TenantRole } from '@odp/core';
import type { ClassJobKind, Platform } from '@odp/platform';
import { existingTenant, need, UsageError } from './command.js';
import type { Command, CommandContext } from './command.js';
import { MODEL_COMMANDS, modelStatusLines } from './model-commands.js';
import { progressBar } from './progress.js';

export { UsageError } from './command.js';
export type { Command, CommandContext, CommandResult } from './command.js';

const UUID_PATTERN = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

function parseRole(value: string): TenantRole {
  const role = TENANT_ROLES.find((r) => r === value);
  if (role === undefined) throw new UsageError(`--role must be one of ${TENANT_ROLES.join(', ')}`);
  return role;
}

function parseDate(option: string, value: string | undefined): string | null {
  if (value === undefined) return null;
  if (!/^\d{4}-\d{2}-\d{2}$/.test(value) || Number.isNaN(Date.parse(value))) {
    throw new UsageError(`--${option} must be a date YYYY-MM-DD`);
  }
  return value;
}

function parseTimestamp(option: string, value: string | undefined): string | null {
  if (value === undefined) return null;
  const time = Date.parse(value);
  if (!/^\d{4}-\d{2}-\d{2}/.test(value) || Number.isNaN(time)) {
    throw new UsageError(`--${option} must be an ISO-8601 date or timestamp`);
  }
  return new Date(time).toISOString();
}

/** The object id of `--object`: an object URI (`/data/<tenant>/persons/<id>`) or a bare id. */
function parseObject(value: string | undefined): string | null {
  if (value === undefined) return null;
  const id = UUID_PATTERN.exec(value)?.[0];
  if (id === undefined) throw new UsageError('--object must be an object URI or id');
  return id;
}

/** `odp` serves no `POST /tenants`, the one user of the platform's example models directory. */
const NO_EXAMPLES_DIR = '';

/**
 * Runs `use` on the platform opened from the configuration, as the api opens it (every configured
 * backend), logging to stderr; closes it afterwards. For the commands that work on tenant data.
 */
async function withPlatform<T>(context: CommandContext, use: (platform: Platform) => Promise<T>): Promise<T> {
  const stderr = new Writable({
    write(chunk: Buffer, _encoding, done) {
      context.stderr(chunk.toString('utf8'));
      done();
    },
  });
  // Loaded on use: the api's module graph (express, engine clients, PDF) would otherwise be paid
  // by every `odp` invocation, `odp key create` included.
  const { createLogger, openPlatform } = await import('@odp/platform');
  const platform = await openPlatform(context.config, NO_EXAMPLES_DIR, { log: createLogger(stderr) });
  try {
    return await use(platform);
  } finally {
    await platform.close();
  }
}

/**
 * `odp recalculate` and `odp sync`: runs the class job in this process, on the tenant's data in
 * the configured backends, with a progress bar on stderr; resolves the final job status.
 */
function classJobCommand(kind: ClassJobKind): Command {
  return {
    usage: `odp ${kind} --tenant ID --class PLURAL`,
    options: ['tenant', 'class'],
    async run(context, values) {
      const tenant = await existingTenant(context.registry, need(values, 'tenant'));
      const typeName = need(values, 'class');
      return withPlatform(context, async (platform) => {
        const runtime = await platform.runtimes.get(tenant.id);
        const tracker = runtime.classJobs[kind];
        await runtime.startClassJob(kind, typeName, (error) =>
          platform.log.error(`class ${kind} failed`, { tenantId: tenant.id, typeName, error: String(error) }),
        );
        const show = progressBar(context.stderr, context.stderrIsTty, `${kind} ${typeName}`);
        while (tracker.status().state === 'running') {
          show(tracker.status());
          await Promise.race([tracker.settled(), new Promise((resolve) => setTimeout(resolve, 200))]);
        }
        const status = tracker.status();
        show(status);
        if (status.state === 'failed') throw new JobFailedError(status.error ?? `The ${kind} failed.`);
        return {
          json: { tenant: tenant.id, ...status },
          text: `${kind} of ${typeName} in tenant ${tenant.id}: ${status.processed} object(s), ${status.state}`,
        };
      });
    },
  };
}

/** A job that ended in failure (exit code 1; the cause is in the log on stderr). */
class JobFailedError extends AppError {
  constructor(message: string) {
    super('INTERNAL', message);
  }
}

/**
 * The `odp` command table, keyed by the command words. A command imports the modules only it needs
 * (the model loader, `@odp/auth` with its JWT library, the api) when it runs: every `odp` call
 * would otherwise pay for loading them, and a registry command is meant to answer in well under a
 * second (docs/odp.md).
 */
export const COMMANDS: Readonly<Record<string, Command>> = {
  'tenant create': {
    usage: 'odp tenant create --name NAME [--model DIR]',
    options: ['name', 'model'],
    async run({ registry, cwd }, values) {
      const name = need(values, 'name');
      const model = values['model'];
      const modelSource = model === undefined ? null : path.resolve(cwd, model);
      if (modelSource !== null && !(existsSync(modelSource) && statSync(modelSource).isDirectory())) {
        throw new UsageError(`--model: ${model} is not a directory`);
      }
      const tenant = await registry.createTenant({ name, modelSource });
      const created = `Created tenant ${tenant.id} (${tenant.name})`;
      if (modelSource === null) return { json: { id: tenant.id, name: tenant.name }, text: created };
      // The model's errors and warnings (a default that can never apply, say) are for the person
      // who just chose it, not only for whoever later opens the model status.
      const { TenantModel } = await import('@odp/model-loader');
      const { status } = await TenantModel.open(modelSource);
      return {
        json: { id: tenant.id, name: tenant.name, model: status },
        text: [created, ...modelStatusLines(tenant.id, status)].join('\n'),
      };
    },
  },
  'secret-key accept': {
    usage: 'odp secret-key accept',
    options: [],
    /**
     * Records the configured ODP_SECRET_KEY as the deployment's key after a deliberate rotation, so
     * the api and workers start with it again (they refuse a key other than the recorded one).
     */
    async run({ config, registry }) {
      const { acceptSecretKey } = await import('@odp/platform');
      await acceptSecretKey(registry, config.secretKey);
      return {
        json: { accepted: true },
        text: 'Recorded the configured ODP_SECRET_KEY; values stored under the previous key stay unreadable.',
      };
    },
  },
  'tenant list': {
    usage: 'odp tenant list',
    options: [],
    async run({ registry }) {
      const tenants = (await registry.listTenants()).map(({ id, name, modelSource, createdAt }) => ({
        id,
        name,
        modelSource,
        createdAt,
      }));
      return {
        json: { tenants },
        text: tenants.length === 0 ? 'No tenants.' : tenants.map((t) => `${t.id}  ${t.name}`).join('\n'),
      };
    },
  },
  'tenant delete': {
    usage: 'odp tenant delete --id ID',
    options: ['id'],
    /**
     * Deletes the tenant as `DELETE /admin/{tenant}?deleteTenant=true` does (apps/api
     * tenant-deletion.ts): every configured backend (store, search index, file blobs, jobs, data
     * directory) and the registry. Opens every backend first: with one of them down, nothing of
     * the tenant is deleted.
     */
    async run(context, values) {
      const { id } = await existingTenant(context.registry, need(values, 'id'));
      await withPlatform(context, (platform) => platform.deletion.delete(id, { deleteTenant: true }));
      return { json: { id, deleted: true }, text: `Deleted tenant ${id} with its profiles, keys and data.` };
    },
  },
  'profile create': {
    usage:
      'odp profile create --tenant ID --sub SUB --email EMAIL --role admin|member|viewer [--roles r1,r2] ' +
      '[--object HREF] [--active-until YYYY-MM-DD] [--issuer ISS]',
    options: ['tenant', 'sub', 'email', 'role', 'roles', 'object', 'active-until', 'issuer'],
    async run({ registry, config }, values) {
      const tenant = await existingTenant(registry, need(values, 'tenant'));
      const profile = await registry.createProfile({
        tenantId: tenant.id,
        issuer: values['issuer'] ?? config.auth?.issuer ?? null,
        subject: need(values, 'sub'),
        email: need(values, 'email'),
        role: parseRole(need(values, 'role')),
        extraRoles: (values['roles'] ?? '')
          .split(',')
          .map((r) => r.trim())
          .filter((r) => r !== ''),
        objectId: parseObject(values['object']),
        activeUntil: parseDate('active-until', values['active-until']),
      });
      return {
        json: { id: profile.id },
        text: `Created profile ${profile.id} (${profile.role}) in ${tenant.id}`,
      };
    },
  },
  'profile suspend': {
    usage: 'odp profile suspend --tenant ID --id PROFILE',
    options: ['tenant', 'id'],
    async run({ registry }, values) {
      const profile = await registry.setProfileActive(need(values, 'tenant'), need(values, 'id'), false);
      return { json: { id: profile.id, active: false }, text: `Suspended profile ${profile.id}` };
    },
  },
  'profile activate': {
    usage: 'odp profile activate --tenant ID --id PROFILE',
    options: ['tenant', 'id'],
    async run({ registry }, values) {
      const profile = await registry.setProfileActive(need(values, 'tenant'), need(values, 'id'), true);
      return { json: { id: profile.id, active: true }, text: `Activated profile ${profile.id}` };
    },
  },
  'profile list': {
    usage: 'odp profile list --tenant ID',
    options: ['tenant'],
    async run({ registry, now }, values) {
      const tenant = await existingTenant(registry, need(values, 'tenant'));
      const profiles = (await registry.listProfiles(tenant.id)).map((profile) => ({
        ...profile,
        activeNow: isProfileActive(profile, now()),
      }));
      const line = (p: (typeof profiles)[number]) =>
        `${p.id}  ${p.role.padEnd(6)}  ${p.activeNow ? 'active   ' : 'inactive '}  ${p.email}` +
        (p.subject === null ? '' : `  (${p.issuer ?? '-'} ${p.subject})`);
      return {
        json: { tenant: tenant.id, profiles },
        text: profiles.length === 0 ? 'No profiles.' : profiles.map(line).join('\n'),
      };
    },
  },
  'invitation list': {
    usage: 'odp invitation list --tenant ID',
    options: ['tenant'],
    /** Invitations of the UserInvitation gateway and their state; never a token or its hash. */
    async run({ registry, now }, values) {
      const tenant = await existingTenant(registry, need(values, 'tenant'));
      const at = now().toISOString();
      const invitations = (await registry.listInvitations(tenant.id)).map((invitation) => ({
        ...invitation,
        state: invitation.acceptedAt !== null ? 'accepted' : invitation.expiresAt <= at ? 'expired' : 'open',
      }));
      const line = (i: (typeof invitations)[number]) =>
        `${i.id}  ${i.state.padEnd(8)}  ${i.email}  profile ${i.profileId}  until ${i.expiresAt}`;
      return {
        json: { tenant: tenant.id, invitations },
        text: invitations.length === 0 ? 'No invitations.' : invitations.map(line).join('\n'),
      };
    },
  },
  'key list': {
    usage: 'odp key list --tenant ID',
    options: ['tenant'],
    /** Key ids and their state only: a key's value is shown once at creation and its hash never. */
    async run({ registry, now }, values) {
      const tenant = await existingTenant(registry, need(values, 'tenant'));
      const at = now().toISOString();
      const keys = (await registry.listApiKeys(tenant.id)).map((key) => ({
        id: key.id,
        profileId: key.profileId,
        createdAt: key.createdAt,
        expiresAt: key.expiresAt,
        revokedAt: key.revokedAt,
        state:
          key.revokedAt !== null
            ? 'revoked'
            : key.expiresAt !== null && key.expiresAt <= at
              ? 'expired'
              : 'valid',
      }));
      const line = (k: (typeof keys)[number]) =>
        `${k.id}  ${k.state.padEnd(7)}  ${k.profileId === null ? 'system key' : `profile ${k.profileId}`}`;
      return {
        json: { tenant: tenant.id, keys },
        text: keys.length === 0 ? 'No keys.' : keys.map(line).join('\n'),
      };
    },
  },
  'key create': {
    usage: 'odp key create --tenant ID [--profile PROFILE] [--expires ISO-8601]',
    options: ['tenant', 'profile', 'expires'],
    async run({ registry }, values) {
      const { generateApiKey } = await import('@odp/auth');
      const { key, hash } = generateApiKey();
      const record = await registry.createApiKey({
        tenantId: need(values, 'tenant'),
        profileId: values['profile'] ?? null,
        expiresAt: parseTimestamp('expires', values['expires']),
        keyHash: hash,
      });
      const kind = record.profileId === null ? 'system key' : `key of profile ${record.profileId}`;
      return {
        json: { id: record.id, key },
        text: `Created ${kind} ${record.id}. The key is shown once; store it now:\n${key}`,
      };
    },
  },
  ...MODEL_COMMANDS,
  types: {
    usage: 'odp types --tenant ID [--out FILE]',
    options: ['tenant', 'out'],
    /**
     * TypeScript declarations of the tenant's classes for `@odp/client` (docs/client.md), from the
     * model read as `odp model reload` reads it; to stdout, or to `--out`.
     */
    async run({ registry, config, cwd }, values) {
      const tenant = await existingTenant(registry, need(values, 'tenant'));
      const [{ TenantModel }, { tenantTypes }] = await Promise.all([
        import('@odp/model-loader'),
        import('@odp/typegen'),
      ]);
      // A model that does not load is the api's 503 (exit code 1), naming its status.
      const tenantModel = await TenantModel.open(tenant.modelSource, {
        maxRepositoryBytes: config.maxModelBytes,
      });
      const model = tenantModel.requireModel();
      const text = tenantTypes(model, { tenantId: tenant.id });
      const out = values['out'];
      if (out === undefined) return { json: { tenant: tenant.id, types: text }, text: text.trimEnd() };
      writeFileSync(path.resolve(cwd, out), text);
      return {
        json: { tenant: tenant.id, out: path.resolve(cwd, out) },
        text: `Wrote ${path.resolve(cwd, out)}`,
      };
    },
  },
  rebuild: {
    usage: 'odp rebuild --tenant ID',
    options: ['tenant'],
    /**
     * Asks the api to rebuild the tenant's derived data: the rebuild needs the api's own store and
     * access-control state (a second writer on the database would race it), so the command records a
     * request that the api starts on its next request to the tenant (docs/odp.md, docs/search.md).
     */
    async run({ registry, config }, values) {
      const tenant = await existingTenant(registry, need(values, 'tenant'));
      await registry.setSetting(rebuildRequestKey(tenant.id), randomUUID());
      const progress = `${config.baseUrl}/admin/${tenant.id}/rebuild`;
      return {
        json: { tenant: tenant.id, requested: true, progress },
        text: `Rebuild of tenant ${tenant.id} requested: the api starts it on its next request to the tenant.\nProgress: GET ${progress}`,
      };
    },
  },
  'data load-defaults': {
    usage: 'odp data load-defaults --tenant ID',
    options: ['tenant'],
    /**
     * Asks the api to load the tenant's default data (the model's fixtures, `POST
     * /data/{tenant}/loadDefaultData`): like `rebuild`, the writes belong to the api that owns the
     * tenant's stores, so the command records a request the api serves on its next request to the
     * tenant. Objects that exist are skipped; the api logs `default data loaded` with the counts.
     */
    async run({ registry, config }, values) {
      const tenant = await existingTenant(registry, need(values, 'tenant'));
      await registry.setSetting(defaultDataRequestKey(tenant.id), randomUUID());
      const check = `${config.baseUrl}/data/${tenant.id}`;
      return {
        json: { tenant: tenant.id, requested: true },
        text:
          `Loading of the default data of tenant ${tenant.id} requested: the api loads it on its next request ` +
          `to the tenant (${check}/...); objects that exist are kept.`,
      };
    },
  },
  recalculate: classJobCommand('recalculate'),
  sync: classJobCommand('sync'),
  'model webhook': {
    usage: 'odp model webhook --tenant ID',
    options: ['tenant'],
    async run({ registry, config }, values) {
      const tenant = await existingTenant(registry, need(values, 'tenant'));
      const url = `${config.baseUrl}/admin/${tenant.id}/modelWebhook`;
      return {
        json: { url, secret: tenant.webhookSecret },
        text: `Push webhook: POST ${url}\nSecret (signature header X-Hub-Signature-256): ${tenant.webhookSecret}`,
      };
    },
  },
  'key revoke': {
    usage: 'odp key revoke --tenant ID --id KEYID',
    options: ['tenant', 'id'],
    async run({ registry, now }, values) {
      const record = await registry.revokeApiKey(need(values, 'tenant'), need(values, 'id'), now());
      return { json: { id: record.id, revokedAt: record.revokedAt }, text: `Revoked key ${record.id}` };
    },
  },
};

/** The `parseArgs` option configuration of a command. */
export function parseArgsOptions(command: Command): NonNullable<ParseArgsConfig['options']> {
  return Object.fromEntries([
    ['json', { type: 'boolean' as const }],
    ...command.options.map((name) => [name, { type: 'string' as const }]),
  ]);
}
