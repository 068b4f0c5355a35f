/**
 * The on-disk layout of the SQLite store (kine-style MVCC on SQL, single writer):
 *
 * - `log`: append-only history. Its INTEGER PRIMARY KEY `rev` is the global revision (etcd's
 *   mod_revision). `prev_revision` is the revision of the row this one supersedes (0 for a create),
 *   `deleted` marks tombstones, whose `value` repeats the deleted value so delete events carry it.
 *   Serves reads at older revisions and watch replay.
 * - `current`: one row per live key, written in the same transaction as the log row, so reads and
 *   prefix lists at the head revision never touch history.
 * - `meta`: small integers that must survive restarts (the compacted revision, compaction progress).
 */
import type { SqliteDatabase } from './sqlite-driver.js';

export const META_COMPACTED_REVISION = 'compacted_revision';
/** History was actually deleted up to here; it lags the compacted revision while compaction runs. */
export const META_COMPACTION_DONE_THROUGH = 'compaction_done_through';

const SCHEMA = `
CREATE TABLE IF NOT EXISTS log (
  rev INTEGER PRIMARY KEY,
  key TEXT NOT NULL,
  value TEXT NOT NULL,
  create_revision INTEGER NOT NULL,
  prev_revision INTEGER NOT NULL,
  deleted INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS log_key_rev ON log (key, rev);
CREATE TABLE IF NOT EXISTS current (
  key TEXT PRIMARY KEY,
  rev INTEGER NOT NULL,
  create_revision INTEGER NOT NULL,
  value TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS meta (
  name TEXT PRIMARY KEY,
  value INTEGER NOT NULL
);
`;

/**
 * Prepares a freshly opened connection: WAL journal, the requested synchronous level (FULL fsyncs
 * the WAL on every commit, so an acknowledged write survives a crash of the process or machine), and
 * the tables.
 */
export function initializeSchema(db: SqliteDatabase, synchronous: 'FULL' | 'NORMAL'): void {
  db.pragma('journal_mode = WAL');
  db.pragma(`synchronous = ${synchronous}`);
  db.exec(SCHEMA);
}

/** Reads one meta integer; 0 when unset. */
export function readMeta(db: SqliteDatabase, name: string): number {
  const row = db.prepare('SELECT value FROM meta WHERE name = ?').get(name) as { value: number } | undefined;
  return row?.value ?? 0;
}
