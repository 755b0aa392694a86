/**
 * The schema of a tenant database and its migrations. The database's `user_version` is the number
 * of migrations applied; opening a store applies the missing ones in one transaction each.
 * See docs/storage.md for the reasons behind each table and index.
 */
import type Database from 'better-sqlite3';
import { applyMigrations } from '../migrations.js';
import type { Migration } from '../migrations.js';

/** The tenant database's schema steps; a released step is never edited, the next one is appended. */
export const TENANT_MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: 'objects, class membership, value index, links, ACL rows, holdings, redirects, events',
    up: `
  -- Interned names (classes 'c:', fields 'f:', relation keys 'r:') so index rows hold small integers.
  CREATE TABLE dict (k INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE);

  -- n is the internal key (insertion order = creation order); id is the public UUID.
  CREATE TABLE objects (
    n INTEGER PRIMARY KEY,
    id TEXT NOT NULL UNIQUE,
    basic TEXT NOT NULL,
    classes TEXT NOT NULL,
    name TEXT COLLATE NOCASE,
    vals TEXT NOT NULL,
    created TEXT NOT NULL,
    modified TEXT NOT NULL
  );
  CREATE INDEX objects_name ON objects (name, n);

  -- Class membership: every class of the object (basic, ancestors, gained).
  CREATE TABLE cls (c INTEGER NOT NULL, n INTEGER NOT NULL, PRIMARY KEY (c, n)) WITHOUT ROWID;
  CREATE INDEX cls_n ON cls (n, c);

  -- Typed value index: one row per (class of the object, indexed field of that class, value);
  -- an EMPTY_KEY (-Infinity) row when the field is empty, so sorted walks see every member of the class.
  CREATE TABLE ix (
    c INTEGER NOT NULL,
    f INTEGER NOT NULL,
    v COLLATE NOCASE,
    n INTEGER NOT NULL,
    PRIMARY KEY (c, f, v, n)
  ) WITHOUT ROWID;
  CREATE INDEX ix_n ON ix (n, f, c);

  -- Forward links in order; indexed from both ends.
  CREATE TABLE links (
    src INTEGER NOT NULL,
    rel INTEGER NOT NULL,
    pos INTEGER NOT NULL,
    dst INTEGER NOT NULL,
    PRIMARY KEY (src, rel, pos)
  ) WITHOUT ROWID;
  CREATE INDEX links_dst ON links (dst, rel, src);

  CREATE TABLE acl (
    n INTEGER NOT NULL,
    ac TEXT NOT NULL,
    node TEXT NOT NULL,
    def TEXT NOT NULL,
    PRIMARY KEY (n, ac, node, def)
  ) WITHOUT ROWID;
  CREATE INDEX acl_ac ON acl (ac, n);

  CREATE TABLE holdings (
    holder TEXT NOT NULL,
    ac TEXT NOT NULL,
    def TEXT NOT NULL,
    anchor TEXT NOT NULL,
    steps TEXT NOT NULL
  );
  CREATE INDEX holdings_anchor ON holdings (anchor, def);
  CREATE INDEX holdings_holder ON holdings (holder);
  CREATE INDEX holdings_ac ON holdings (ac);

  CREATE TABLE redirects (src TEXT PRIMARY KEY, dst TEXT NOT NULL) WITHOUT ROWID;
  CREATE INDEX redirects_dst ON redirects (dst);

  CREATE TABLE events (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    type TEXT NOT NULL,
    object_id TEXT NOT NULL,
    classes TEXT NOT NULL,
    loser_id TEXT,
    at TEXT NOT NULL
  );

  -- Store settings: the applied model's index signature, the cursor key.
  CREATE TABLE meta (k TEXT PRIMARY KEY, v TEXT NOT NULL) WITHOUT ROWID;
  `,
  },
  {
    version: 2,
    name: 'full-text index',
    up: `
  -- Full-text index: one row per object, rowid = objects.n. Contentless (the text is derived from
  -- the object), with deletes supported.
  CREATE VIRTUAL TABLE search USING fts5(
    text,
    content = '',
    contentless_delete = 1,
    tokenize = 'unicode61 remove_diacritics 2',
    prefix = '2 3'
  );
  `,
  },
  {
    version: 3,
    name: 'full-text prefix indexes for 1 to 6 characters',
    up: `
  -- A prefix query without a prefix index of its length materialises the doclists of every
  -- matching term; with one it is read lazily. Typed prefixes are short, so 1-6 are indexed.
  -- The entries are re-derived by the next applyModel (the signature is forgotten).
  DROP TABLE search;
  CREATE VIRTUAL TABLE search USING fts5(
    text,
    content = '',
    contentless_delete = 1,
    tokenize = 'unicode61 remove_diacritics 2',
    prefix = '1 2 3 4 5 6'
  );
  DELETE FROM meta WHERE k = 'index_signature';
  `,
  },
  {
    version: 4,
    name: 'object keys never reused; frozen search rankings',
    up: `
  -- AUTOINCREMENT: the key of a deleted newest object is never handed out again, so "keys up to
  -- the snapshot bound" (search paging) and creation order never admit a later object.
  CREATE TABLE objects_v4 (
    n INTEGER PRIMARY KEY AUTOINCREMENT,
    id TEXT NOT NULL UNIQUE,
    basic TEXT NOT NULL,
    classes TEXT NOT NULL,
    name TEXT COLLATE NOCASE,
    vals TEXT NOT NULL,
    created TEXT NOT NULL,
    modified TEXT NOT NULL
  );
  INSERT INTO objects_v4 (n, id, basic, classes, name, vals, created, modified)
    SELECT n, id, basic, classes, name, vals, created, modified FROM objects ORDER BY n;
  DROP TABLE objects;
  ALTER TABLE objects_v4 RENAME TO objects;
  CREATE INDEX objects_name ON objects (name, n);

  -- The ranked object keys of a bm25 search paging, frozen at its first page (JSON array, at most
  -- searchRankLimit keys), so later pages neither shift nor reorder; rows expire.
  CREATE TABLE search_pages (id TEXT PRIMARY KEY, expires INTEGER NOT NULL, keys TEXT NOT NULL) WITHOUT ROWID;
  CREATE INDEX search_pages_expires ON search_pages (expires);
  `,
  },
  {
    version: 5,
    name: 'held acIds per class',
    up: `
  -- One row per (acId carried by the object, class of the object): the held grants of a protected
  -- class are a range read per held acId (ac, c), so a member's few objects of one class are found
  -- without reading the acl rows of the other classes. Derived from acl and cls on every write.
  CREATE TABLE acl_cls (ac TEXT NOT NULL, c INTEGER NOT NULL, n INTEGER NOT NULL, PRIMARY KEY (ac, c, n)) WITHOUT ROWID;
  CREATE INDEX acl_cls_n ON acl_cls (n, c, ac);
  INSERT OR IGNORE INTO acl_cls (ac, c, n) SELECT a.ac, m.c, a.n FROM acl a JOIN cls m ON m.n = a.n;
  `,
  },
  {
    version: 6,
    name: 'job outbox',
    up: `
  -- Jobs a write triggered (script gateway calls), written in the write's transaction and removed
  -- once relayed into the platform's job queue. job is the NewJob as JSON.
  CREATE TABLE outbox (seq INTEGER PRIMARY KEY AUTOINCREMENT, id TEXT NOT NULL UNIQUE, job TEXT NOT NULL);
  `,
  },
  {
    version: 7,
    name: 'counters and sums per indexed value',
    up: `
  -- Per class c, group field f (single-valued DATE, LIST or BOOLEAN) and index key v: g = 0 counts
  -- the objects; g = a numeric field's key holds how many of them have a value of g and its sum
  -- (aggregates.ts). Derived from ix on every write; filled by the next applyModel, which
  -- re-derives everything (the signature is forgotten).
  CREATE TABLE ixagg (
    c INTEGER NOT NULL,
    f INTEGER NOT NULL,
    v COLLATE NOCASE NOT NULL,
    g INTEGER NOT NULL,
    cnt INTEGER NOT NULL,
    sum REAL NOT NULL,
    PRIMARY KEY (c, f, v, g)
  ) WITHOUT ROWID;
  DELETE FROM meta WHERE k = 'index_signature';
  `,
  },
  {
    version: 8,
    name: 'changed field names of events',
    up: `
  -- The names of the fields an event's write changed (create: set), as a JSON array; NULL for the
  -- events written before (and for deletes and merges): readers then leave the list out.
  ALTER TABLE events ADD COLUMN changed TEXT;
  `,
  },
  {
    version: 9,
    name: 'idempotency records',
    up: `
  -- What a request sent with an Idempotency-Key answered (idempotency.ts), per account and key;
  -- response is the IdempotentResponse as JSON. Written by the write it describes, in its
  -- transaction; times are ISO strings (UTC), so they compare as text.
  CREATE TABLE idempotency (
    account TEXT NOT NULL,
    key TEXT NOT NULL,
    fingerprint TEXT NOT NULL,
    state TEXT NOT NULL,
    response TEXT NOT NULL,
    object_id TEXT,
    created TEXT NOT NULL,
    expires TEXT NOT NULL,
    PRIMARY KEY (account, key)
  );
  CREATE INDEX idempotency_expires ON idempotency (expires);
  `,
  },
  {
    version: 10,
    name: 'no index of ACL rows by acId',
    up: `
  -- No query reads acl by acId: the access filter probes an object's rows by its key (the primary
  -- key), and the held grants of a class are read from acl_cls. The index cost every new object a
  -- page per access control it carries.
  DROP INDEX IF EXISTS acl_ac;
  `,
  },
  {
    version: 11,
    name: 'frozen search rankings in a file of their own',
    up: `
  -- Storing a ranking was a commit to this database, after which SQLite makes every other
  -- connection (another api process) drop its page cache of it. Rankings now live beside it
  -- (search-rankings.ts); the pagings of rankings dropped here answer that their cursor expired.
  DROP TABLE search_pages;
  `,
  },
];

/** Applies the migrations the database lacks; refuses a database written by a newer version. */
export function migrateTenantDatabase(db: Database.Database): void {
  applyMigrations(db, TENANT_MIGRATIONS);
}
