/**
 * The small slice of better-sqlite3 that the SQLite store uses, typed locally. The project does not
 * depend on @types/better-sqlite3, so the module is loaded through createRequire and given exactly
 * these shapes; anything outside them is deliberately unavailable to the store.
 */
import { createRequire } from 'node:module';

export interface RunResult {
  changes: number;
  lastInsertRowid: number | bigint;
}

export interface SqliteStatement {
  run(...params: unknown[]): RunResult;
  get(...params: unknown[]): unknown;
  all(...params: unknown[]): unknown[];
}

export interface SqliteDatabase {
  prepare(sql: string): SqliteStatement;
  exec(sql: string): void;
  pragma(source: string, options?: { simple?: boolean }): unknown;
  /** Wraps fn in BEGIN/COMMIT; a throw rolls back and is rethrown. */
  transaction<A extends unknown[], R>(fn: (...args: A) => R): (...args: A) => R;
  close(): void;
  readonly open: boolean;
}

type DatabaseConstructor = new (path: string, options?: { timeout?: number }) => SqliteDatabase;

const requireFromHere = createRequire(import.meta.url);
let databaseConstructor: DatabaseConstructor | undefined;

/** Opens (creating when missing) the SQLite database file at path; ':memory:' gives a private in-memory database. */
export function openSqliteDatabase(path: string): SqliteDatabase {
  databaseConstructor ??= requireFromHere('better-sqlite3') as DatabaseConstructor;
  return new databaseConstructor(path, { timeout: 30_000 });
}
