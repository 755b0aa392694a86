/** The `odp` command (`bin/odp ...` or `pnpm odp ...` from the repository root). See docs/odp.md. */
import { runCli } from './cli.js';

process.exitCode = await runCli(process.argv.slice(2), {
  env: process.env,
  /** `bin/odp` and `pnpm odp` run in the repository root; INIT_CWD is where the user typed the command. */
  cwd: process.env['INIT_CWD'] ?? process.cwd(),
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
  stderrIsTty: process.stderr.isTTY === true,
});
