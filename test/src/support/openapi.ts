import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/**
 * Validates a document with the standard OpenAPI schema validator (@seriousme/openapi-schema-validator,
 * the JSON Schemas the OpenAPI Initiative publishes), run as its own command-line tool.
 */
export async function validateOpenApi(document: unknown): Promise<{ valid: boolean; errors?: unknown }> {
  const packageDir = path.dirname(require.resolve('@seriousme/openapi-schema-validator/package.json'));
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'odp-openapi-')), 'openapi.json');
  fs.writeFileSync(file, JSON.stringify(document));
  try {
    const { stdout } = await run(process.execPath, [path.join(packageDir, 'bin/validate-api-cli.js'), file]);
    return JSON.parse(stdout) as { valid: boolean };
  } catch (error) {
    const stdout = (error as { stdout?: string }).stdout ?? '';
    return stdout.startsWith('{')
      ? (JSON.parse(stdout) as { valid: boolean })
      : { valid: false, errors: String(error) };
  } finally {
    fs.rmSync(path.dirname(file), { recursive: true, force: true });
  }
}
