/**
 * The workspace tree below the current workspace (the current workspace's children live, deeper levels listed as a node opens), with each
 * workspace's type and phase; create a child, delete one, go into one. Flattened into one virtualised list, so a
 * workspace with 1,000 children opens as fast as one with ten.
 */
import { useMemo, useState } from 'preact/hooks';
import { ApiError, type KubeObject } from '../api';
import { href, type Session } from '../route';
import { useWatchedObjects } from '../watch';
import { VirtualList } from '../virtual-list';
import { ErrorBox } from './common';

const wsPath = (ws: string, name?: string) => `/clusters/${ws}/apis/tenancy.kcp.io/v1alpha1/workspaces${name ? `/${encodeURIComponent(name)}` : ''}`;

interface Node {
  path: string;
  depth: number;
  object: KubeObject;
}

export function Workspaces({ session, ws }: { session: Session; ws: string }) {
  const [open, setOpen] = useState<Set<string>>(new Set());
  const [children, setChildren] = useState<Record<string, KubeObject[]>>({});
  const top = useWatchedObjects(session.api, wsPath(ws));
  const toggle = (path: string) => {
    const next = new Set(open);
    if (next.has(path)) next.delete(path);
    else next.add(path);
    setOpen(next);
  };
  const rows = useMemo(() => {
    const out: Node[] = [];
    const add = (parent: string, items: KubeObject[], depth: number) => {
      for (const o of [...items].sort((a, b) => (a.metadata!.name! < b.metadata!.name! ? -1 : 1))) {
        const path = `${parent}:${o.metadata!.name}`;
        out.push({ path, depth, object: o });
        if (open.has(path)) add(path, children[path] ?? [], depth + 1);
      }
    };
    add(ws, top.items, 0);
    return out;
  }, [top.items, children, open, ws]);

  return (
    <section aria-labelledby="ws-title">
      <h1 id="ws-title">
        Workspace <span class="mono">{ws}</span>
      </h1>
      <CreateWorkspace session={session} ws={ws} />
      {top.error && <ErrorBox error={top.error} what={`the workspaces in ${ws}`} />}
      {!top.error && !top.loading && rows.length === 0 && <p class="muted">No child workspaces.</p>}
      {rows.length > 0 && (
        <VirtualList
          label="Workspaces"
          testId="workspace-tree"
          items={rows}
          rowHeight={34}
          height={Math.min(rows.length * 34 + 34, 560)}
          keyOf={(n) => n.path}
          onActivate={(n) => (location.hash = href({ ws: n.path, view: 'workspaces' }))}
          header={
            <div class="vhead" role="row">
              <span class="c-name">NAME</span>
              <span>TYPE</span>
              <span>PHASE</span>
              <span />
            </div>
          }
          render={(n) => <TreeRow session={session} node={n} open={open.has(n.path)} toggle={toggle} onChildren={(items) => setChildren((c) => ({ ...c, [n.path]: items }))} />}
        />
      )}
    </section>
  );
}

function TreeRow({ session, node, open, toggle, onChildren }: { session: Session; node: Node; open: boolean; toggle: (p: string) => void; onChildren: (items: KubeObject[]) => void }) {
  const o = node.object;
  const spec = (o.spec ?? {}) as { type?: { name?: string; path?: string } };
  const phase = ((o.status ?? {}) as { phase?: string }).phase ?? '';
  const name = o.metadata!.name!;
  const parent = node.path.slice(0, node.path.lastIndexOf(':'));
  return (
    <div class="tree-row" role="gridcell" data-testid={`ws-${node.path}`}>
      <span class="c-name" style={{ paddingLeft: `${node.depth * 18}px` }}>
        <button
          class="twisty"
          aria-label={`${open ? 'Collapse' : 'Expand'} ${name}`}
          aria-expanded={open}
          onClick={(e) => {
            e.stopPropagation();
            if (!open) void loadChildren(session, node.path).then(onChildren);
            toggle(node.path);
          }}
        >
          {open ? '▾' : '▸'}
        </button>
        <a href={href({ ws: node.path, view: 'workspaces' })} onClick={(e) => e.stopPropagation()}>
          {name}
        </a>
      </span>
      <span class="mono">{spec.type ? `${spec.type.path ? `${spec.type.path}:` : ''}${spec.type.name}` : ''}</span>
      <span>
        <span class={`badge phase-${phase.toLowerCase()}`}>{phase || 'Pending'}</span>
        {o.metadata?.deletionTimestamp && <span class="badge warn">Deleting</span>}
      </span>
      <span class="actions">
        <button
          class="danger small"
          aria-label={`Delete workspace ${name}`}
          onClick={async (e) => {
            e.stopPropagation();
            if (!confirm(`Delete workspace ${node.path} and everything in it?`)) return;
            try {
              await session.api.request('DELETE', wsPath(parent, name));
            } catch (err) {
              alert((err as ApiError).message);
            }
          }}
        >
          Delete
        </button>
      </span>
    </div>
  );
}

async function loadChildren(session: Session, path: string): Promise<KubeObject[]> {
  try {
    const list = await session.api.get<{ items: KubeObject[] }>(wsPath(path));
    return list.items ?? [];
  } catch {
    return [];
  }
}

function CreateWorkspace({ session, ws }: { session: Session; ws: string }) {
  const [name, setName] = useState('');
  const [type, setType] = useState('');
  const [error, setError] = useState<ApiError | undefined>();
  const [busy, setBusy] = useState(false);
  return (
    <form
      class="inline-form"
      aria-label="Create a workspace"
      onSubmit={async (e) => {
        e.preventDefault();
        setBusy(true);
        setError(undefined);
        try {
          const [typePath, typeName] = type.includes(':') ? [type.slice(0, type.lastIndexOf(':')), type.slice(type.lastIndexOf(':') + 1)] : ['', type];
          await session.api.request('POST', wsPath(ws), {
            body: JSON.stringify({
              apiVersion: 'tenancy.kcp.io/v1alpha1',
              kind: 'Workspace',
              metadata: { name: name.trim() },
              ...(typeName ? { spec: { type: { name: typeName, ...(typePath ? { path: typePath } : {}) } } } : {}),
            }),
          });
          setName('');
        } catch (err) {
          setError(err as ApiError);
        } finally {
          setBusy(false);
        }
      }}
    >
      <label for="new-ws">New workspace</label>
      <input id="new-ws" name="name" placeholder="name" value={name} onInput={(e) => setName((e.target as HTMLInputElement).value)} required spellcheck={false} />
      <label for="new-ws-type" class="sr-only">
        Type
      </label>
      <input id="new-ws-type" name="type" placeholder="type (default)" value={type} onInput={(e) => setType((e.target as HTMLInputElement).value)} spellcheck={false} />
      <button type="submit" class="primary" disabled={busy || !name.trim()}>
        Create
      </button>
      {error && <ErrorBox error={error} />}
    </form>
  );
}
