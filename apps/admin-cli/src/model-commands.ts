/**
 * `odp model reload` and `odp model push`: a tenant's model stored as the current model version in
 * the registry, which every api instance then serves (docs/model-format.md, "Model versions").
 */
import { existsSync, statSync } from 'node:fs';
import path from 'node:path';
import { AppError } from '@odp/core';
import type { ModelStatus } from '@odp/model-loader';
import { existingTenant, need, UsageError } from './command.js';
import type { Command } from './command.js';

/** A model status as text: one summary line, then one line per error and warning. */
export function modelStatusLines(tenantId: string, status: ModelStatus): string[] {
  return [
    `Model of tenant ${tenantId}: ${status.state}${status.version === null ? '' : `, version ${status.version}`} (${status.errors.length} error(s), ${status.warnings.length} warning(s), ${status.upgradableFiles} upgradable file(s))`,
    ...[...status.errors, ...status.warnings].map(
      (i) => `${i.severity} ${i.file}${i.path === '' ? '' : `#${i.path}`}: ${i.message}`,
    ),
  ];
}

export const MODEL_COMMANDS: Readonly<Record<string, Command>> = {
  'model reload': {
    usage: 'odp model reload --tenant ID',
    options: ['tenant'],
    /**
     * Reads the tenant's model repository and, when it loads, stores it as the tenant's current
     * model version, which every api instance then serves; prints the status of the attempt.
     */
    async run({ registry, config, now }, values) {
      const tenant = await existingTenant(registry, need(values, 'tenant'));
      const { readModelCandidate, storeModelCandidate } = await import('@odp/platform/model-versions');
      const candidate = await readModelCandidate(tenant.modelSource, config);
      const status = await storeModelCandidate(registry, tenant.id, candidate, now());
      return { json: { ...status }, text: modelStatusLines(tenant.id, status).join('\n') };
    },
  },
  'model push': {
    usage: 'odp model push --tenant ID DIR',
    options: ['tenant'],
    positional: 'dir',
    /**
     * Stores the model repository DIR (any directory, a git working tree) as the tenant's current
     * model version once it loads, which every api instance then serves. A refused model stores
     * nothing and the command fails (exit 1) naming its errors; the current version stays.
     */
    async run({ registry, config, cwd, now }, values) {
      const tenant = await existingTenant(registry, need(values, 'tenant'));
      const dir = path.resolve(cwd, need(values, 'dir'));
      if (!(existsSync(dir) && statSync(dir).isDirectory()))
        throw new UsageError(`${dir} is not a directory`);
      const { readModelCandidate, storeModelCandidate } = await import('@odp/platform/model-versions');
      const status = await storeModelCandidate(
        registry,
        tenant.id,
        await readModelCandidate(dir, config),
        now(),
      );
      const lines = modelStatusLines(tenant.id, status);
      if (status.state !== 'LOADED') {
        throw new AppError(
          'MODEL_REFUSED',
          `the model was refused; nothing was stored.\n${lines.join('\n')}`,
        );
      }
      return { json: { ...status }, text: lines.join('\n') };
    },
  },
};
