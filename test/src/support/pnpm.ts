import { spawnSync } from 'node:child_process';
import path from 'node:path';

/**
 * The pnpm that runs this suite (`pnpm run test` sets npm_execpath), else one on the PATH, as the
 * command words to spawn; null when there is none. The README's start command is `pnpm start`, so
 * the suites that check it drive it through pnpm itself.
 */
export function pnpmCommand(): string[] | null {
  const execPath = process.env['npm_execpath'];
  if (execPath !== undefined && /pnpm/.test(path.basename(execPath))) {
    return execPath.endsWith('.js') || execPath.endsWith('.cjs') ? [process.execPath, execPath] : [execPath];
  }
  return spawnSync('pnpm', ['--version'], { encoding: 'utf8' }).status === 0 ? ['pnpm'] : null;
}
