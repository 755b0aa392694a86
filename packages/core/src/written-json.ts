/**
 * The JSON text of a rendered value, written once. A page held to its byte budget serialises each
 * object to measure it ({@link measureJson}); the answer that sends the page then writes that text
 * ({@link writtenJson}) instead of serialising the object again. For values that are final once
 * measured (a rendered DataObject is never changed after it was rendered): the text is kept by the
 * object's identity, weakly, for as long as the object lives.
 */
const texts = new WeakMap<object, string>();

/** The UTF-8 bytes of `value` as JSON; its text is kept for {@link writtenJson}. */
export function measureJson(value: object): number {
  const text = JSON.stringify(value) ?? '';
  texts.set(value, text);
  return Buffer.byteLength(text);
}

/** The JSON text {@link measureJson} wrote for `value`, if it measured it. */
export function writtenJson(value: unknown): string | undefined {
  return typeof value === 'object' && value !== null ? texts.get(value) : undefined;
}
