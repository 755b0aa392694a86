/**
 * A subject (store, queue, index...) opened fresh before every case and closed after it, handed to
 * contract suites as one stable handle. Each concern of a contract lives in its own
 * `describe...Contract(handle)` function; the handle forwards every member to the subject of the
 * case that is running, so those functions can be composed by a thin entry that opens the subject
 * once per case for all of them.
 */
export function perCase<T extends object>(open: () => Promise<T>, close: (subject: T) => Promise<void>): T {
  let current: T | undefined;
  beforeEach(async () => {
    current = await open();
  });
  afterEach(async () => {
    const subject = current;
    current = undefined;
    if (subject !== undefined) await close(subject);
  });
  return new Proxy({} as T, {
    get(_target, member) {
      if (current === undefined) throw new Error('the subject of a contract is open only while a case runs');
      const value: unknown = Reflect.get(current, member, current);
      return typeof value === 'function' ? value.bind(current) : value;
    },
  });
}
