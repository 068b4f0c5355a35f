/**
 * Resources: every resource the workspace serves (aggregated discovery) in the navigation, and a resource's list as
 * the server's Table — the columns kubectl prints — live through a watch and virtualised.
 */
import { useEffect, useMemo, useState } from 'preact/hooks';
import { resourcePath, type ApiError, type ResourceInfo } from '../api';
import { href, type Route, type Session } from '../route';
import { useWatchedTable } from '../watch';
import { VirtualList } from '../virtual-list';
import { ErrorBox } from './common';

const discoveryCache = new Map<string, Promise<ResourceInfo[]>>();

/** The workspace's served resources, cached per workspace for the session. */
export function useDiscovery(session: Session, ws: string): { resources: ResourceInfo[]; error?: ApiError } {
  const [state, setState] = useState<{ resources: ResourceInfo[]; error?: ApiError }>({ resources: [] });
  useEffect(() => {
    let p = discoveryCache.get(ws);
    if (!p) {
      p = session.api.discover(ws);
      discoveryCache.set(ws, p);
      p.catch(() => discoveryCache.delete(ws));
    }
    p.then(
      (resources) => setState({ resources }),
      (error: ApiError) => setState({ resources: [], error }),
    );
  }, [session, ws]);
  return state;
}

export function ResourceNav({ session, ws, current }: { session: Session; ws: string; current: Route }) {
  const { resources, error } = useDiscovery(session, ws);
  const [filter, setFilter] = useState('');
  const groups = useMemo(() => {
    const f = filter.trim().toLowerCase();
    const byGroup = new Map<string, ResourceInfo[]>();
    for (const r of resources) {
      if (r.resource.includes('/') || !r.verbs.includes('list')) continue;
      if (f && !r.resource.includes(f) && !r.kind.toLowerCase().includes(f) && !r.shortNames.includes(f)) continue;
      const list = byGroup.get(r.group) ?? [];
      list.push(r);
      byGroup.set(r.group, list);
    }
    return [...byGroup.entries()].sort(([a], [b]) => (a === '' ? -1 : b === '' ? 1 : a < b ? -1 : 1));
  }, [resources, filter]);
  return (
    <div class="resources-nav">
      <h2 id="res-title">Resources</h2>
      <label for="res-filter" class="sr-only">
        Filter resources
      </label>
      <input id="res-filter" type="search" placeholder="Filter…" value={filter} onInput={(e) => setFilter((e.target as HTMLInputElement).value)} />
      <a class="new-link" href={href({ ws, view: 'new' })}>
        + Create from YAML
      </a>
      {error && <p class="error small">Discovery: {error.message}</p>}
      <ul aria-labelledby="res-title" data-testid="resource-nav">
        {groups.map(([group, list]) => (
          <li key={group}>
            <span class="group">{group || 'core'}</span>
            <ul>
              {list.map((r) => (
                <li key={r.resource}>
                  <a
                    href={href({ ws, view: 'list', group: r.group, version: r.version, resource: r.resource })}
                    aria-current={current.view === 'list' && current.resource === r.resource && current.group === r.group ? 'page' : undefined}
                  >
                    {r.kind || r.resource}
                  </a>
                </li>
              ))}
            </ul>
          </li>
        ))}
      </ul>
    </div>
  );
}

export function ResourceList({ session, route }: { session: Session; route: Route }) {
  const { resources } = useDiscovery(session, route.ws);
  const info = resources.find((r) => r.group === route.group && r.resource === route.resource);
  const ns = route.namespace;
  const r = { group: route.group ?? '', version: route.version ?? 'v1', resource: route.resource ?? '' };
  const table = useWatchedTable(session.api, route.resource ? resourcePath(route.ws, r, ns) : undefined);
  const [filter, setFilter] = useState('');
  const allNamespaces = info?.namespaced && !ns;
  const columns = table.columns.filter((c) => !c.priority);
  const colIndexes = table.columns.map((c, i) => (c.priority ? -1 : i)).filter((i) => i >= 0);
  const rows = useMemo(() => {
    const f = filter.trim();
    return f ? table.items.filter((row) => `${row.object.metadata?.namespace ?? ''}/${row.object.metadata?.name ?? ''}`.includes(f)) : table.items;
  }, [table.items, filter]);
  const template = `${allNamespaces ? 'minmax(8rem,1fr) ' : ''}${columns.map((_, i) => (i === 0 ? 'minmax(10rem,2fr)' : 'minmax(5rem,1fr)')).join(' ')}`;
  return (
    <section aria-labelledby="list-title">
      <div class="list-head">
        <h1 id="list-title">
          {info?.kind ?? route.resource} <span class="muted small">{r.group ? `${r.resource}.${r.group}` : r.resource}</span>
        </h1>
        <span class="count" data-testid="row-count" aria-live="polite">
          {rows.length}
          {table.loading ? '…' : ''} {rows.length === 1 ? 'item' : 'items'}
        </span>
      </div>
      <div class="toolbar">
        {info?.namespaced && <NamespacePicker session={session} ws={route.ws} value={ns} onChange={(n) => (location.hash = href({ ...route, namespace: n }))} />}
        <label for="row-filter" class="sr-only">
          Filter by name
        </label>
        <input id="row-filter" type="search" placeholder="Filter by name…" value={filter} onInput={(e) => setFilter((e.target as HTMLInputElement).value)} />
        <a class="button" href={href({ ws: route.ws, view: 'new' })}>
          Create
        </a>
      </div>
      {table.error && <ErrorBox error={table.error} what={`${route.resource} in ${route.ws}`} />}
      {!table.error && (
        <VirtualList
          label={`${info?.kind ?? route.resource} list`}
          testId="resource-table"
          items={rows}
          rowHeight={30}
          height="calc(100vh - 13rem)"
          keyOf={(row) => row.key}
          onActivate={(row) =>
            (location.hash = href({ ws: route.ws, view: 'object', group: r.group, version: r.version, resource: r.resource, namespace: row.object.metadata?.namespace, name: row.object.metadata?.name }))
          }
          header={
            <div class="vhead table" role="row" style={{ gridTemplateColumns: template }}>
              {allNamespaces && <span role="columnheader">NAMESPACE</span>}
              {columns.map((c) => (
                <span role="columnheader" key={c.name} title={c.description}>
                  {c.name.toUpperCase()}
                </span>
              ))}
            </div>
          }
          render={(row) => (
            <div class="cells" style={{ gridTemplateColumns: template }} data-testid={`row-${row.object.metadata?.namespace ? `${row.object.metadata.namespace}/` : ''}${row.object.metadata?.name}`}>
              {allNamespaces && <span role="gridcell">{row.object.metadata?.namespace}</span>}
              {colIndexes.map((i, j) => (
                <span role="gridcell" key={i} class={j === 0 ? 'name' : ''}>
                  {cellText(row.cells[i])}
                </span>
              ))}
            </div>
          )}
        />
      )}
    </section>
  );
}

const cellText = (v: unknown): string => (v === null || v === undefined ? '<none>' : typeof v === 'object' ? JSON.stringify(v) : String(v));

function NamespacePicker({ session, ws, value, onChange }: { session: Session; ws: string; value?: string; onChange: (ns: string | undefined) => void }) {
  const [names, setNames] = useState<string[]>([]);
  useEffect(() => {
    session.api.get<{ items: { metadata: { name: string } }[] }>(`/clusters/${ws}/api/v1/namespaces`).then(
      (l) => setNames(l.items.map((n) => n.metadata.name)),
      () => setNames([]),
    );
  }, [session, ws]);
  return (
    <>
      <label for="ns-pick" class="sr-only">
        Namespace
      </label>
      <select id="ns-pick" value={value ?? ''} onChange={(e) => onChange((e.target as HTMLSelectElement).value || undefined)}>
        <option value="">All namespaces</option>
        {[...new Set([...names, ...(value ? [value] : [])])].map((n) => (
          <option key={n} value={n}>
            {n}
          </option>
        ))}
      </select>
    </>
  );
}
