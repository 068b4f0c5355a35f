/**
 * Live lists: list, then watch from the list's resourceVersion, as an informer does (re-watch from the last seen
 * version when the server ends the stream, relist on 410 Gone). Two shapes: objects (useWatchedObjects) and the
 * server's Tables (useWatchedTable: the columns kubectl prints, one row per object, rows keyed by uid).
 */
import { useEffect, useState } from 'preact/hooks';
import { ApiError, tableAccept, type Api, type KubeObject, type Table, type TableColumn, type WatchEvent } from './api';

export interface Live<T> {
  items: T[];
  error?: ApiError;
  loading: boolean;
}

const keyOf = (o: KubeObject | undefined) => o?.metadata?.uid ?? `${o?.metadata?.namespace ?? ''}/${o?.metadata?.name ?? ''}`;
const sep = (path: string) => (path.includes('?') ? '&' : '?');

/**
 * Runs list+watch until aborted. `list` returns the items and the version to watch from; `apply` folds one event in;
 * `publish` is called (at most once per animation frame) when something changed.
 */
async function listWatch<T>(
  signal: AbortSignal,
  list: () => Promise<string>,
  watch: (rv: string, onEvent: (e: WatchEvent<T>) => void) => Promise<void>,
  apply: (e: WatchEvent<T>) => string | undefined,
  fail: (err: ApiError) => void,
): Promise<void> {
  let rv = '';
  let backoff = 500;
  while (!signal.aborted) {
    try {
      if (!rv) rv = await list();
      await watch(rv, (e) => {
        if (e.type === 'ERROR') {
          const code = (e.object as { code?: number }).code;
          if (code === 410) rv = '';
          throw new ApiError((e.object as { message?: string }).message ?? 'watch error', code ?? 500);
        }
        const next = apply(e);
        if (next) rv = next;
      });
      backoff = 500;
    } catch (err) {
      if (signal.aborted) return;
      const e = err instanceof ApiError ? err : new ApiError((err as Error).message, 0);
      if (e.code === 410) rv = '';
      else if (e.code === 403 || e.code === 401 || e.code === 404) {
        fail(e);
        return;
      } else fail(e);
      await new Promise((r) => setTimeout(r, backoff));
      backoff = Math.min(backoff * 2, 5000);
    }
  }
}

/** Calls `fn` once per animation frame at most. */
function frameThrottle(fn: () => void): () => void {
  let queued = false;
  return () => {
    if (queued) return;
    queued = true;
    requestAnimationFrame(() => {
      queued = false;
      fn();
    });
  };
}

/** A live list of objects at `path` (a collection path, with an optional query); undefined path = nothing. */
export function useWatchedObjects(api: Api, path: string | undefined): Live<KubeObject> {
  const [state, setState] = useState<Live<KubeObject>>({ items: [], loading: true });
  useEffect(() => {
    if (!path) {
      setState({ items: [], loading: false });
      return;
    }
    setState({ items: [], loading: true });
    const ctrl = new AbortController();
    const byKey = new Map<string, KubeObject>();
    const publish = frameThrottle(() => setState({ items: [...byKey.values()], loading: false }));
    void listWatch<KubeObject>(
      ctrl.signal,
      async () => {
        const list = await api.get<{ apiVersion?: string; kind?: string; items: KubeObject[]; metadata?: { resourceVersion?: string } }>(path, undefined, ctrl.signal);
        byKey.clear();
        // A built-in kind's list is typed: its items carry no apiVersion/kind, which the list names (as watch events do).
        const itemKind = list.kind?.endsWith('List') ? list.kind.slice(0, -4) : undefined;
        for (const o of list.items ?? []) byKey.set(keyOf(o), { ...o, apiVersion: o.apiVersion ?? list.apiVersion, kind: o.kind ?? itemKind });
        setState({ items: [...byKey.values()], loading: false });
        return list.metadata?.resourceVersion ?? '0';
      },
      (rv, onEvent) => api.watch<KubeObject>(`${path}${sep(path)}watch=1&allowWatchBookmarks=true&resourceVersion=${rv}`, onEvent, { signal: ctrl.signal }),
      (e) => {
        if (e.type === 'DELETED') byKey.delete(keyOf(e.object));
        else if (e.type !== 'BOOKMARK') byKey.set(keyOf(e.object), e.object);
        if (e.type !== 'BOOKMARK') publish();
        return e.object.metadata?.resourceVersion;
      },
      (error) => setState((s) => ({ ...s, error, loading: false })),
    );
    return () => ctrl.abort();
  }, [api, path]);
  return state;
}

export interface LiveRow {
  key: string;
  cells: unknown[];
  object: KubeObject;
}

export interface LiveTable extends Live<LiveRow> {
  columns: TableColumn[];
  /** When the last watch event changed the rows (performance.now()). */
  changedAt?: number;
}

/**
 * A live server-side Table at `path`: listed in pages of 500 (the first page shows at once), then watched; rows are
 * sorted by namespace and name, as kubectl sorts them.
 */
export function useWatchedTable(api: Api, path: string | undefined): LiveTable {
  const [state, setState] = useState<LiveTable>({ items: [], columns: [], loading: true });
  useEffect(() => {
    if (!path) {
      setState({ items: [], columns: [], loading: false });
      return;
    }
    setState({ items: [], columns: [], loading: true });
    const ctrl = new AbortController();
    const byKey = new Map<string, LiveRow>();
    let columns: TableColumn[] = [];
    const sorted = () =>
      [...byKey.values()].sort((a, b) => {
        const an = a.object.metadata?.namespace ?? '';
        const bn = b.object.metadata?.namespace ?? '';
        if (an !== bn) return an < bn ? -1 : 1;
        const x = a.object.metadata?.name ?? '';
        const y = b.object.metadata?.name ?? '';
        return x < y ? -1 : x > y ? 1 : 0;
      });
    const publish = frameThrottle(() => setState({ items: sorted(), columns, loading: false, changedAt: performance.now() }));
    const addRows = (t: Table) => {
      for (const row of t.rows ?? []) {
        const object = row.object ?? {};
        byKey.set(keyOf(object), { key: keyOf(object), cells: row.cells, object });
      }
    };
    void listWatch<Table>(
      ctrl.signal,
      async () => {
        byKey.clear();
        let cont = '';
        let rv = '';
        do {
          const t = await api.get<Table>(`${path}${sep(path)}limit=500${cont ? `&continue=${encodeURIComponent(cont)}` : ''}`, tableAccept, ctrl.signal);
          if (t.columnDefinitions?.length) columns = t.columnDefinitions;
          if (!rv) rv = t.metadata?.resourceVersion ?? '0';
          addRows(t);
          cont = t.metadata?.continue ?? '';
          setState({ items: sorted(), columns, loading: cont !== '' });
        } while (cont && !ctrl.signal.aborted);
        return rv;
      },
      (rv, onEvent) => api.watch<Table>(`${path}${sep(path)}watch=1&allowWatchBookmarks=true&resourceVersion=${rv}`, onEvent, { signal: ctrl.signal, accept: tableAccept }),
      (e) => {
        if (e.type === 'BOOKMARK') return e.object.metadata?.resourceVersion;
        if (e.object.columnDefinitions?.length && columns.length === 0) columns = e.object.columnDefinitions;
        const row = e.object.rows?.[0];
        const object = row?.object ?? {};
        if (e.type === 'DELETED') byKey.delete(keyOf(object));
        else if (row) byKey.set(keyOf(object), { key: keyOf(object), cells: row.cells, object });
        publish();
        return object.metadata?.resourceVersion;
      },
      (error) => setState((s) => ({ ...s, error, loading: false })),
    );
    return () => ctrl.abort();
  }, [api, path]);
  return state;
}
