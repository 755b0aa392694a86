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
