/**
 * The embedded storage backend: SQLite (better-sqlite3) laid out as an append-only revision log plus a
 * table of current values (see sqlite-schema.ts). This process is the only writer, which lets revision
 * assignment, precondition checks and watch publication happen in one synchronous step per commit:
 * no polling, no gap detection, no fill rows.
 *
 * Writes are group-committed: all writes submitted in one event-loop turn share one transaction (one
 * fsync with synchronous=FULL). Preconditions are checked per write inside that transaction in arrival
 * order, so a failed precondition fails only its own write, and a later write in the batch sees the
 * effects of earlier ones.
 */
import { errorText, logger } from '../../logging/logger.js';
import { StorageError, keyNotFound, modRevisionConflict, revisionCompacted } from '../errors.js';
import type {
  KeyValue,
  ListOptions,
  ListResult,
  Storage,
  StorageWatchEvent,
  WatchCallbacks,
  WatchHandle,
} from '../interface.js';
import { GroupCommit } from './group-commit.js';
import { prefixUpperBound } from './key-range.js';
import { LogWatchHub } from './log-watch-hub.js';
import { openSqliteDatabase, type SqliteDatabase, type SqliteStatement } from './sqlite-driver.js';
import { META_COMPACTED_REVISION, META_COMPACTION_DONE_THROUGH, initializeSchema, readMeta } from './sqlite-schema.js';

export interface SqliteStoreOptions {
  /**
   * FULL (default) fsyncs every commit: an acknowledged write survives kill -9 and power loss.
   * NORMAL in WAL mode survives a process crash but may lose the last commits on power loss.
   */
  synchronous?: 'FULL' | 'NORMAL';
  /** Revisions of history deleted per compaction transaction (bounds how long writers wait). */
  compactionBatch?: number;
}

type WriteRequest =
  | { kind: 'create'; key: string; value: string }
  | { kind: 'update'; key: string; value: string; expectedModRevision: number }
  | { kind: 'delete'; key: string; expectedModRevision?: number };

interface CurrentRow {
  rev: number;
  create_revision: number;
  value: string;
}

interface LogRow {
  rev: number;
  key: string;
  value: string;
  create_revision: number;
  deleted: number;
  prev_value: string | null;
}

interface KeyValueRow {
  key: string;
  value: string;
  createRevision: number;
  modRevision: number;
}

export class SqliteStore implements Storage {
  private revision: number;
  private compacted: number;
  private compactionDoneThrough: number;
  private closing = false;
  private closed = false;
  /** Serializes compaction runs; close() waits for it. */
  private compaction: Promise<void> = Promise.resolve();
  private readonly compactionBatch: number;
  private readonly watchHub: LogWatchHub;
  private readonly writes: GroupCommit<WriteRequest, KeyValue>;
  private readonly statementCache = new Map<string, SqliteStatement>();
  private readonly commitBatch: (requests: WriteRequest[], outcomes: Array<KeyValue | Error>, events: StorageWatchEvent[]) => void;

  private constructor(
    private readonly db: SqliteDatabase,
    options: SqliteStoreOptions,
  ) {
    this.compactionBatch = options.compactionBatch ?? 1000;
    this.compacted = readMeta(db, META_COMPACTED_REVISION);
    this.compactionDoneThrough = readMeta(db, META_COMPACTION_DONE_THROUGH);
    const newest = (db.prepare('SELECT MAX(rev) AS rev FROM log').get() as { rev: number | null }).rev ?? 0;
    // Compaction may have deleted the newest rows (a trailing tombstone and its predecessor), but never
    // rows above the compacted revision, so max(newest row, compacted) is the highest revision ever issued.
    this.revision = Math.max(newest, this.compacted);
    this.watchHub = new LogWatchHub({
      readHistory: (prefix, after, through) => this.readHistory(prefix, after, through),
      headRevision: () => this.revision,
      compactedRevision: () => this.compacted,
    });
    this.commitBatch = db.transaction((requests: WriteRequest[], outcomes: Array<KeyValue | Error>, events: StorageWatchEvent[]) => {
      for (const request of requests) outcomes.push(this.applyWrite(request, events));
    });
    this.writes = new GroupCommit<WriteRequest, KeyValue>((requests) => this.commitGroup(requests), {
      mapFatal: (err) =>
        err instanceof StorageError ? err : new StorageError('Unavailable', '', `sqlite commit failed: ${String(err)}`),
    });
    if (this.compactionDoneThrough < this.compacted) {
      // A compaction was interrupted by a restart: finish deleting its history in the background.
      this.compaction = this.deleteHistoryThrough(this.compacted).catch(logCompactionFailure);
    }
  }

  /**
   * Opens (creating when missing) the store in the SQLite file at path. ':memory:' gives a private
   * in-memory store for tests. Throws if the file cannot be opened.
   */
  static open(path: string, options: SqliteStoreOptions = {}): SqliteStore {
    const db = openSqliteDatabase(path);
    try {
      initializeSchema(db, options.synchronous ?? 'FULL');
      return new SqliteStore(db, options);
    } catch (err) {
      db.close();
      throw err;
    }
  }

  create(key: string, value: string): Promise<KeyValue> {
    return this.submit({ kind: 'create', key, value });
  }

  update(key: string, value: string, expectedModRevision: number): Promise<KeyValue> {
    return this.submit({ kind: 'update', key, value, expectedModRevision });
  }

  delete(key: string, expectedModRevision?: number): Promise<KeyValue> {
    return this.submit({ kind: 'delete', key, expectedModRevision });
  }

  async get(key: string, revision?: number): Promise<KeyValue | null> {
    this.assertOpen(key);
    const at = this.readRevision(key, revision);
    if (at === this.revision) {
      const row = this.statement('SELECT rev, create_revision, value FROM current WHERE key = ?').get(key) as
        | CurrentRow
        | undefined;
      return row ? { key, value: row.value, createRevision: row.create_revision, modRevision: row.rev } : null;
    }
    const row = this.statement(
      'SELECT rev, create_revision, value, deleted FROM log WHERE key = ? AND rev <= ? ORDER BY rev DESC LIMIT 1',
    ).get(key, at) as (CurrentRow & { deleted: number }) | undefined;
    if (!row || row.deleted) return null;
    return { key, value: row.value, createRevision: row.create_revision, modRevision: row.rev };
  }

  async list(prefix: string, options: ListOptions = {}): Promise<ListResult> {
    this.assertOpen(prefix);
    const at = this.readRevision(prefix, options.revision);
    const limit = options.limit && options.limit > 0 ? options.limit : 0;
    const range = this.keyRange(prefix, options.afterKey);
    const fromHead = at === this.revision;
    const items = this.statement(fromHead ? range.headSelect : range.snapshotSelect).all(
      ...range.params,
      ...(fromHead ? [] : [at, at]),
      limit > 0 ? limit + 1 : -1,
    ) as KeyValueRow[];
    const more = limit > 0 && items.length > limit;
    if (!more) return { items, revision: at, more: false };
    items.length = limit;
    const rest = this.keyRange(prefix, items[limit - 1]!.key);
    const { n } = this.statement(fromHead ? rest.headCount : rest.snapshotCount).get(
      ...rest.params,
      ...(fromHead ? [] : [at, at]),
    ) as { n: number };
    return { items, revision: at, more: true, remaining: n };
  }

  async count(prefix: string): Promise<number> {
    this.assertOpen(prefix);
    const range = this.keyRange(prefix, undefined);
    return (this.statement(range.headCount).get(...range.params) as { n: number }).n;
  }

  watch(prefix: string, fromRevision: number, callbacks: WatchCallbacks): WatchHandle {
    if (this.closing) {
      setImmediate(() => callbacks.onError(new StorageError('Unavailable', prefix, 'storage is closed')));
      return { stop() {} };
    }
    return this.watchHub.watch(prefix, fromRevision, callbacks);
  }

  async currentRevision(): Promise<number> {
    return this.revision;
  }

  async compactedRevision(): Promise<number> {
    return this.compacted;
  }

  /**
   * Marks revision as compacted at once (reads and watches below it fail with Compacted from now on),
   * then deletes the superseded history in transactions of `compactionBatch` revisions, yielding to
   * the event loop between them so writes keep flowing. Resolves when the deletion is done. A revision
   * at or below the current compacted revision is a no-op; one above the head is FutureRevision.
   */
  async compact(revision: number): Promise<void> {
    if (this.closing) throw new StorageError('Unavailable', '', 'storage is closed');
    if (revision > this.revision) {
      throw new StorageError(
        'FutureRevision',
        '',
        `cannot compact at revision ${revision}: the current revision is ${this.revision}`,
        undefined,
        this.revision,
      );
    }
    if (revision > this.compacted) {
      this.statement('INSERT OR REPLACE INTO meta (name, value) VALUES (?, ?)').run(META_COMPACTED_REVISION, revision);
      this.compacted = revision;
    }
    const target = this.compacted;
    // A failed earlier run must not poison the chain; its error went to its own caller.
    const run = this.compaction.catch(() => undefined).then(() => this.deleteHistoryThrough(target));
    this.compaction = run;
    await run;
  }

  /** Commits pending writes, ends watches with Unavailable, waits for compaction to pause, closes the file. */
  async close(): Promise<void> {
    if (this.closing) return;
    this.writes.flush();
    this.closing = true;
    await this.compaction.catch(() => undefined);
    this.watchHub.closeAll(new StorageError('Unavailable', '', 'storage is closed'));
    this.closed = true;
    this.db.close();
  }

  private submit(request: WriteRequest): Promise<KeyValue> {
    if (this.closing) return Promise.reject(new StorageError('Unavailable', request.key, 'storage is closed'));
    return this.writes.submit(request);
  }

  /** Runs one group of writes in one transaction, then publishes the committed events. */
  private commitGroup(requests: WriteRequest[]): Array<KeyValue | Error> {
    const firstRevision = this.revision;
    const outcomes: Array<KeyValue | Error> = [];
    const events: StorageWatchEvent[] = [];
    try {
      this.commitBatch(requests, outcomes, events);
    } catch (err) {
      // Rolled back: none of the revisions handed out in this group exist.
      this.revision = firstRevision;
      throw err;
    }
    this.watchHub.publish(events);
    return outcomes;
  }

  /** Applies one write inside the group's transaction; a failed precondition changes nothing. */
  private applyWrite(request: WriteRequest, events: StorageWatchEvent[]): KeyValue | Error {
    const { key } = request;
    const current = this.statement('SELECT rev, create_revision, value FROM current WHERE key = ?').get(key) as
      | CurrentRow
      | undefined;
    const insertLog = this.statement(
      'INSERT INTO log (rev, key, value, create_revision, prev_revision, deleted) VALUES (?, ?, ?, ?, ?, ?)',
    );
    switch (request.kind) {
      case 'create': {
        if (current) return new StorageError('KeyExists', key, `key ${key} already exists`);
        const rev = ++this.revision;
        insertLog.run(rev, key, request.value, rev, 0, 0);
        this.statement('INSERT INTO current (key, rev, create_revision, value) VALUES (?, ?, ?, ?)').run(
          key,
          rev,
          rev,
          request.value,
        );
        events.push({ type: 'create', key, value: request.value, revision: rev, createRevision: rev });
        return { key, value: request.value, createRevision: rev, modRevision: rev };
      }
      case 'update': {
        if (!current) return keyNotFound(key);
        if (current.rev !== request.expectedModRevision) return conflict(key, current, request.expectedModRevision);
        const rev = ++this.revision;
        insertLog.run(rev, key, request.value, current.create_revision, current.rev, 0);
        this.statement('UPDATE current SET rev = ?, value = ? WHERE key = ?').run(rev, request.value, key);
        events.push({
          type: 'update',
          key,
          value: request.value,
          prevValue: current.value,
          revision: rev,
          createRevision: current.create_revision,
        });
        return { key, value: request.value, createRevision: current.create_revision, modRevision: rev };
      }
      case 'delete': {
        if (!current) return keyNotFound(key);
        if (request.expectedModRevision !== undefined && current.rev !== request.expectedModRevision) {
          return conflict(key, current, request.expectedModRevision);
        }
        const rev = ++this.revision;
        insertLog.run(rev, key, current.value, current.create_revision, current.rev, 1);
        this.statement('DELETE FROM current WHERE key = ?').run(key);
        events.push({
          type: 'delete',
          key,
          value: current.value,
          prevValue: current.value,
          revision: rev,
          createRevision: current.create_revision,
        });
        return { key, value: current.value, createRevision: current.create_revision, modRevision: rev };
      }
    }
  }

  /** Events for the watch hub's replay: log rows under prefix with rev in (after, through]. */
  private readHistory(prefix: string, after: number, through: number): StorageWatchEvent[] {
    const upper = prefixUpperBound(prefix);
    const rows = this.statement(
      `SELECT l.rev, l.key, l.value, l.create_revision, l.deleted, p.value AS prev_value
       FROM log l LEFT JOIN log p ON p.rev = l.prev_revision
       WHERE l.rev > ? AND l.rev <= ? AND l.key >= ?${upper === null ? '' : ' AND l.key < ?'}
       ORDER BY l.rev`,
    ).all(after, through, prefix, ...(upper === null ? [] : [upper])) as LogRow[];
    return rows.map(eventFromLogRow);
  }

  /** Deletes superseded history and tombstones up to target, one bounded transaction at a time. */
  private async deleteHistoryThrough(target: number): Promise<void> {
    const deleteSuperseded = this.statement(
      'DELETE FROM log WHERE rev IN (SELECT prev_revision FROM log WHERE rev > ? AND rev <= ? AND prev_revision > 0)',
    );
    const deleteTombstones = this.statement('DELETE FROM log WHERE rev > ? AND rev <= ? AND deleted = 1');
    const recordProgress = this.statement('INSERT OR REPLACE INTO meta (name, value) VALUES (?, ?)');
    // A row and the tombstone that superseded it go in the same transaction, so a snapshot read never
    // sees a predecessor whose tombstone is already gone.
    const step = this.db.transaction((from: number, to: number) => {
      deleteSuperseded.run(from, to);
      deleteTombstones.run(from, to);
      recordProgress.run(META_COMPACTION_DONE_THROUGH, to);
    });
    while (this.compactionDoneThrough < target && !this.closing) {
      const from = this.compactionDoneThrough;
      const to = Math.min(target, from + this.compactionBatch);
      step(from, to);
      this.compactionDoneThrough = to;
      if (to < target) await new Promise<void>((resolve) => setImmediate(resolve));
    }
  }

  /**
   * The revision a read happens at: the head for 0/undefined. Compacted below the compacted revision,
   * FutureRevision above the head.
   */
  private readRevision(key: string, revision: number | undefined): number {
    if (!revision) return this.revision;
    if (revision > this.revision) {
      throw new StorageError(
        'FutureRevision',
        key,
        `required revision ${revision} is a future revision (current revision ${this.revision})`,
        undefined,
        this.revision,
      );
    }
    if (revision < this.compacted) {
      throw revisionCompacted(key, revision, this.compacted);
    }
    return revision;
  }

  /**
   * SQL for a key range: keys under prefix, optionally strictly after afterKey. The snapshot variants
   * take two extra parameters (the read revision, twice) and pick, per key, the newest log row at or
   * below it; tombstones hide the key.
   */
  private keyRange(prefix: string, afterKey: string | undefined) {
    const upper = prefixUpperBound(prefix);
    const conditions = ['key >= ?'];
    const params: string[] = [prefix];
    if (upper !== null) {
      conditions.push('key < ?');
      params.push(upper);
    }
    if (afterKey !== undefined) {
      conditions.push('key > ?');
      params.push(afterKey);
    }
    const where = conditions.join(' AND ');
    const snapshotWhere = `${conditions.map((c) => `l.${c}`).join(' AND ')} AND l.rev <= ? AND l.deleted = 0
      AND l.rev = (SELECT MAX(x.rev) FROM log x WHERE x.key = l.key AND x.rev <= ?)`;
    return {
      params,
      headSelect: `SELECT key, value, create_revision AS createRevision, rev AS modRevision FROM current WHERE ${where} ORDER BY key LIMIT ?`,
      headCount: `SELECT COUNT(*) AS n FROM current WHERE ${where}`,
      snapshotSelect: `SELECT l.key, l.value, l.create_revision AS createRevision, l.rev AS modRevision FROM log l WHERE ${snapshotWhere} ORDER BY l.key LIMIT ?`,
      snapshotCount: `SELECT COUNT(*) AS n FROM log l WHERE ${snapshotWhere}`,
    };
  }

  private statement(sql: string): SqliteStatement {
    let statement = this.statementCache.get(sql);
    if (!statement) {
      statement = this.db.prepare(sql);
      this.statementCache.set(sql, statement);
    }
    return statement;
  }

  private assertOpen(key: string): void {
    if (this.closed) throw new StorageError('Unavailable', key, 'storage is closed');
  }
}

function conflict(key: string, current: CurrentRow, expected: number): StorageError {
  return modRevisionConflict(key, { key, value: current.value, createRevision: current.create_revision, modRevision: current.rev }, expected);
}

function eventFromLogRow(row: LogRow): StorageWatchEvent {
  if (row.deleted) {
    return {
      type: 'delete',
      key: row.key,
      value: row.value,
      prevValue: row.value,
      revision: row.rev,
      createRevision: row.create_revision,
    };
  }
  if (row.create_revision === row.rev) {
    return { type: 'create', key: row.key, value: row.value, revision: row.rev, createRevision: row.create_revision };
  }
  return {
    type: 'update',
    key: row.key,
    value: row.value,
    ...(row.prev_value === null ? {} : { prevValue: row.prev_value }),
    revision: row.rev,
    createRevision: row.create_revision,
  };
}

function logCompactionFailure(err: unknown): void {
  logger.warn('sqlite store: resuming compaction failed', { error: errorText(err) });
}
