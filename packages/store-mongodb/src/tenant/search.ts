/**
 * The tenant's full-text search on the object documents themselves (no text index: FerretDB has
 * none, and the scale-out stack searches with Elasticsearch). Each object document carries its
 * distinct search words (`sw`, accent- and case-folded) and its word count (`sn`), written by the
 * store with the object, so the index is maintained by the store.
 *
 * - Matching: every query term is a prefix of some word of the object (an anchored regular
 *   expression, which MongoDB serves as a range of the multikey `sw` index), all terms AND-combined, within the class scope and the access filter.
 * - Ranking: the share of the object's words that match a term (a shorter text with the term ranks
 *   higher), then newest first.
 * - Paging: the first page freezes the ranked ids of every match in `searchPages` (for
 *   `cursorTtlMs`); cursors are signed (HMAC with the tenant's key) and name the frozen list and
 *   the query, so following pages list each first-page match once in the first page's order,
 *   leaving out those deleted or hidden since.
 */
import { randomBytes } from 'node:crypto';
import { invalidSearchCursor, seal, searchTerms, unseal } from '@odp/core';
import type { AccessFilter, Model, SearchDocument, SearchIndex, SearchPage, SearchQuery } from '@odp/core';
import type { Collection } from 'mongodb';
import { compareText, searchFields, searchWords } from './documents.js';
import type { ObjectDoc } from './documents.js';
import { accessCondition, and, escapeRegex } from './query.js';

export interface SearchPageDoc {
  _id: string;
  ids: string[];
  expires: Date;
}

export interface MongoSearchContext {
  readonly objects: Collection<ObjectDoc>;
  readonly pages: Collection<SearchPageDoc>;
  /** The tenant's key signing cursors. */
  readonly secret: Buffer;
  readonly cursorTtlMs: number;
  /** Re-derives every object's derived fields (search words included); resolves the count. */
  readonly rebuild: (model: Model) => Promise<number>;
}

interface Cursor {
  /** The frozen page list. */
  readonly p: string;
  /** Offset of the next page in it. */
  readonly o: number;
  /** The query the list was ranked for. */
  readonly q: string;
}

export class MongoSearchIndex implements SearchIndex {
  readonly maintainedByStore = true;

  constructor(private readonly context: MongoSearchContext) {}

  /** Replaces the search words of stored objects with those of the given text; ids not stored are ignored. */
  async index(documents: readonly SearchDocument[]): Promise<void> {
    for (const document of documents) {
      await this.context.objects.updateOne({ _id: document.id }, { $set: searchFields(document.text) });
    }
  }

  /** Empties the search words of these objects (they match no query until written again). */
  async remove(ids: readonly string[]): Promise<void> {
    if (ids.length === 0) return;
    await this.context.objects.updateMany({ _id: { $in: [...ids] } }, { $set: { sw: [], sn: 0 } });
  }

  async search(query: SearchQuery, access: AccessFilter): Promise<SearchPage> {
    const terms = searchTerms(query.text).flatMap(searchWords);
    const signature = JSON.stringify([terms, [...query.classes].sort(compareText)]);
    if (query.cursor !== undefined) {
      const cursor = this.readCursor(query.cursor, signature);
      const page = await this.context.pages.findOne({ _id: cursor.p });
      if (page === null) throw invalidSearchCursor('This search cursor has expired; search again.');
      return this.pageOf(page, cursor.o, query.size, signature, access);
    }
    if (terms.length === 0) return { ids: [], next: null };
    const matches = await this.context.objects
      .find(
        and([
          { classes: { $in: [...query.classes] } },
          ...terms.map((term) => ({ sw: { $regex: `^${escapeRegex(term)}` } })),
          accessCondition(access),
        ]),
        { projection: { _id: 1, seq: 1, sw: 1, sn: 1 } },
      )
      .toArray();
    const ranked = matches
      .map((doc) => ({
        id: doc._id,
        seq: doc.seq,
        score:
          doc.sw.filter((word) => terms.some((term) => word.startsWith(term))).length / Math.max(1, doc.sn),
      }))
      .sort((a, b) => b.score - a.score || b.seq - a.seq)
      .map((entry) => entry.id);
    if (ranked.length <= query.size) return { ids: ranked, next: null };
    const now = Date.now();
    await this.context.pages.deleteMany({ expires: { $lt: new Date(now) } });
    const page: SearchPageDoc = {
      _id: randomBytes(12).toString('base64url'),
      ids: ranked,
      expires: new Date(now + this.context.cursorTtlMs),
    };
    await this.context.pages.insertOne(page);
    return {
      ids: ranked.slice(0, query.size),
      next: this.writeCursor({ p: page._id, o: query.size, q: signature }),
    };
  }

  async rebuild(model: Model): Promise<number> {
    return this.context.rebuild(model);
  }

  /** One page of a frozen list: its ids still stored and visible, in the frozen order. */
  private async pageOf(
    page: SearchPageDoc,
    offset: number,
    size: number,
    signature: string,
    access: AccessFilter,
  ): Promise<SearchPage> {
    const slice = page.ids.slice(offset, offset + size);
    const visible = new Set(
      (
        await this.context.objects
          .find(and([{ _id: { $in: slice } }, accessCondition(access)]), { projection: { _id: 1 } })
          .toArray()
      ).map((doc) => doc._id),
    );
    const end = offset + size;
    return {
      ids: slice.filter((id) => visible.has(id)),
      next: end < page.ids.length ? this.writeCursor({ p: page._id, o: end, q: signature }) : null,
    };
  }

  private writeCursor(cursor: Cursor): string {
    return seal(cursor, this.context.secret);
  }

  /** The cursor's content; ValidationError when it is damaged, forged or of another query. */
  private readCursor(text: string, signature: string): Cursor {
    const cursor = unseal(text, this.context.secret) as Partial<Cursor> | null;
    if (
      cursor === null ||
      typeof cursor !== 'object' ||
      cursor.q !== signature ||
      typeof cursor.p !== 'string' ||
      !Number.isInteger(cursor.o) ||
      (cursor.o ?? -1) < 0
    ) {
      throw invalidSearchCursor();
    }
    return cursor as Cursor;
  }
}
