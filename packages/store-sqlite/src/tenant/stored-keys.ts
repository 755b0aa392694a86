/**
 * The object keys one write batch works with (tenant/batch-writer.ts): each id is looked up once,
 * and the objects the batch inserts are known without a lookup, as having nothing stored yet (no
 * links, class value rows or ACL rows to read and compare: a create skips those reads).
 */
import type { TenantDatabase } from './database.js';

export class StoredKeys {
  private readonly keys = new Map<string, number | null>();
  /** Per object the batch inserted, the parts (links, ACL rows) not written for it yet. */
  private readonly unwritten = new Map<number, Set<'links' | 'acl'>>();

  constructor(private readonly database: TenantDatabase) {}

  /** The key of the object `id` as the batch has left it so far; null when it is not stored. */
  keyOf(id: string): number | null {
    const known = this.keys.get(id);
    if (known !== undefined) return known;
    const key = this.database.objectKey(id);
    this.keys.set(id, key);
    return key;
  }

  /**
   * Whether nothing of `part` is stored for the object `n`: the batch inserted it and has not
   * written that part of it yet (a batch may put one object twice). Counts as that part's write.
   */
  nothingStored(n: number, part: 'links' | 'acl'): boolean {
    return this.unwritten.get(n)?.delete(part) ?? false;
  }

  inserted(id: string, n: number): void {
    this.keys.set(id, n);
    this.unwritten.set(n, new Set(['links', 'acl']));
  }

  deleted(id: string): void {
    this.keys.set(id, null);
  }
}
