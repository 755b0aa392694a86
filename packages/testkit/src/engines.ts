/**
 * Suites that need a real engine (Redis, MinIO, MongoDB, Elasticsearch) read its address from the
 * variable `tooling/engines` sets (see tooling/engines/README.md). Without it the suite is declared
 * skipped and says why, so an engine that cannot run here is never counted as passing.
 */
export function describeWithEngine(title: string, variable: string, body: (address: string) => void): void {
  const address = process.env[variable]?.trim();
  if (address) {
    describe(title, () => body(address));
    return;
  }
  const reason = `${variable} is not set (start the engine with tooling/engines/up.sh)`;
  process.stderr.write(`skipped: ${title}: ${reason}\n`);
  describe.skip(`${title} [skipped: ${reason}]`, () => {
    it('runs against the real engine', () => undefined);
  });
}

/**
 * A case that needs something the engine under test may lack. `lacking` is null when the engine
 * has it; otherwise it says what is missing and why, and the case is declared skipped with that
 * reason printed, so a case an engine cannot run is never counted as passing.
 */
export function itUnlessLacking(lacking: string | null, title: string, body: () => Promise<void>): void {
  if (lacking === null) {
    it(title, body);
    return;
  }
  process.stderr.write(`skipped: ${title}: ${lacking}\n`);
  it.skip(`${title} [skipped: ${lacking}]`, body);
}
