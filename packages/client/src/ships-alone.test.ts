/** @odp/client ships alone: no dependencies, and no import of another package or of Node's modules. */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '..');

describe('@odp/client ships alone', () => {
  it('has no dependencies', () => {
    const manifest = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as Record<
      string,
      unknown
    >;
    expect(manifest['dependencies'] ?? {}).toEqual({});
  });

  it('its sources import only each other', () => {
    const sources = readdirSync(path.join(ROOT, 'src')).filter(
      (file) => file.endsWith('.ts') && !file.endsWith('.test.ts'),
    );
    const imports = sources.flatMap((file) =>
      [...readFileSync(path.join(ROOT, 'src', file), 'utf8').matchAll(/from '([^']+)'/g)].map(
        (match) => match[1],
      ),
    );
    expect(imports.length).toBeGreaterThan(0);
    expect(imports.filter((specifier) => !specifier!.startsWith('./'))).toEqual([]);
  });
});
