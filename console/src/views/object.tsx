/**
 * One object: its YAML (managedFields folded away, shown on demand), live; an editor that applies the YAML with
 * server-side apply (`fieldManager=atrium-console`, strict field validation) and shows the server's validation
 * errors beside the lines they are about; the object's Events, live. NewObject is the same editor for a new object:
 * the resource is found from the YAML's apiVersion and kind through discovery.
 */
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import YAML, { LineCounter, isNode } from 'yaml';
import { ApiError, age, gv, resourcePath, type KubeObject, type ResourceInfo } from '../api';
import { href, type Route, type Session } from '../route';
import { useWatchedObjects } from '../watch';
import { useDiscovery } from './resources';
import { ErrorBox } from './common';

/** The object as YAML without managedFields (kubectl get -o yaml --show-managed-fields=false). */
function toYaml(o: KubeObject, withManaged: boolean): string {
  if (withManaged) return YAML.stringify(o);
  const { managedFields: _m, ...meta } = o.metadata ?? {};
  return YAML.stringify({ ...o, metadata: meta });
}

/** What to apply for an existing object: the user's fields, not the server's bookkeeping. */
function applyYaml(o: KubeObject): string {
  const { managedFields: _m, resourceVersion: _r, uid: _u, creationTimestamp: _c, generation: _g, ...meta } = o.metadata ?? {};
  const { status: _s, ...rest } = o;
  return YAML.stringify({ ...rest, metadata: meta });
}

export function ObjectView({ session, route }: { session: Session; route: Route }) {
  const r = { group: route.group ?? '', version: route.version ?? 'v1', resource: route.resource ?? '' };
  const path = resourcePath(route.ws, r, route.namespace);
  // The object, live: a watch of the collection narrowed to this name.
  const live = useWatchedObjects(session.api, `${path}?fieldSelector=${encodeURIComponent(`metadata.name=${route.name}`)}`);
  const obj = live.items[0];
  const [showManaged, setShowManaged] = useState(false);
  const [editing, setEditing] = useState(false);
  const [canEdit, setCanEdit] = useState<boolean | undefined>();
  useEffect(() => {
    void session.api.can(route.ws, 'patch', r, route.namespace).then(setCanEdit);
  }, [session, route.ws, route.resource, route.namespace]);
  const managed = obj?.metadata?.managedFields?.length ?? 0;
  return (
    <section aria-labelledby="obj-title">
      <p class="muted small">
        <a href={href({ ...route, view: 'list', namespace: undefined })}>{route.resource}</a>
        {route.namespace && <> in namespace {route.namespace}</>}
      </p>
      <h1 id="obj-title" class="mono">
        {route.name}
      </h1>
      {live.error && <ErrorBox error={live.error} what={`${route.resource} ${route.name}`} />}
      {!live.error && !live.loading && !obj && <p class="muted">This object does not exist (any more).</p>}
      {obj && !editing && (
        <>
          <div class="toolbar">
            <button class="primary" disabled={canEdit === false} title={canEdit === false ? 'You may not patch this object' : undefined} onClick={() => setEditing(true)}>
              Edit
            </button>
            {canEdit === false && <span class="muted small">read-only: your role does not allow patching {route.resource}</span>}
            <button class="link" aria-expanded={showManaged} onClick={() => setShowManaged(!showManaged)}>
              {showManaged ? 'Fold managedFields' : `Show managedFields (${managed})`}
            </button>
          </div>
          <pre class="yaml" data-testid="object-yaml" tabIndex={0} aria-label="Object YAML">
            {toYaml(obj, showManaged)}
          </pre>
        </>
      )}
      {obj && editing && (
        <Editor
          session={session}
          ws={route.ws}
          initial={applyYaml(obj)}
          fixed={{ info: { ...r, kind: obj.kind ?? '', namespaced: !!route.namespace, verbs: [], shortNames: [] } }}
          onDone={() => setEditing(false)}
        />
      )}
      {obj?.metadata?.uid && <Events session={session} ws={route.ws} obj={obj} />}
    </section>
  );
}

const configMapTemplate = `apiVersion: v1
kind: ConfigMap
metadata:
  name: example
  namespace: default
data:
  key: value
`;

export function NewObject({ session, ws }: { session: Session; ws: string }) {
  return (
    <section aria-labelledby="new-title">
      <h1 id="new-title">Create from YAML</h1>
      <p class="muted small">Applied with server-side apply as field manager atrium-console; the server validates it.</p>
      <Editor session={session} ws={ws} initial={configMapTemplate} />
    </section>
  );
}

interface Problem {
  line?: number;
  field?: string;
  message: string;
}

/** "spec.containers[0].image" → ['spec', 'containers', 0, 'image']; "data[a.b]" → ['data', 'a.b']. */
function fieldPath(field: string): (string | number)[] {
  const out: (string | number)[] = [];
  const re = /([^.[\]]+)|\[([^\]]*)\]/g;
  let m: RegExpExecArray | null;
  while ((m = re.exec(field))) {
    if (m[1] !== undefined) out.push(m[1]);
    else out.push(/^\d+$/.test(m[2]!) ? Number(m[2]) : m[2]!);
  }
  return out;
}

/** The 1-based line of the YAML where the field (or its nearest parent) is written. */
function lineOf(text: string, field: string): number | undefined {
  const lc = new LineCounter();
  const doc = YAML.parseDocument(text, { lineCounter: lc });
  const path = fieldPath(field);
  for (let n = path.length; n > 0; n--) {
    const parentPath = path.slice(0, n - 1);
    const parent = parentPath.length ? doc.getIn(parentPath, true) : doc.contents;
    // The key's own line when the parent is a map, else the value's.
    const pair = YAML.isMap(parent) ? parent.items.find((p) => (isNode(p.key) ? (p.key as { value?: unknown }).value : p.key) === path[n - 1]) : undefined;
    const node = pair && isNode(pair.key) ? pair.key : doc.getIn(path.slice(0, n), true);
    if (isNode(node) && node.range) return lc.linePos(node.range[0]).line;
  }
  return undefined;
}

function Editor({ session, ws, initial, fixed, onDone }: { session: Session; ws: string; initial: string; fixed?: { info: ResourceInfo }; onDone?: () => void }) {
  const { resources } = useDiscovery(session, ws);
  const [text, setText] = useState(initial);
  const [problems, setProblems] = useState<Problem[]>([]);
  const [error, setError] = useState<ApiError | undefined>();
  const [force, setForce] = useState(false);
  const [busy, setBusy] = useState(false);
  const [applied, setApplied] = useState<KubeObject | undefined>();
  const area = useRef<HTMLTextAreaElement>(null);
  const gutter = useRef<HTMLDivElement>(null);
  const lines = useMemo(() => text.split('\n').length, [text]);
  const badLines = new Set(problems.map((p) => p.line).filter((l): l is number => l !== undefined));

  const apply = async () => {
    setBusy(true);
    setError(undefined);
    setProblems([]);
    setApplied(undefined);
    try {
      let obj: KubeObject;
      try {
        obj = YAML.parse(text) as KubeObject;
      } catch (err) {
        const e = err as { message: string; linePos?: { line: number }[] };
        setProblems([{ line: e.linePos?.[0]?.line, message: `YAML: ${e.message.split('\n')[0]}` }]);
        return;
      }
      if (!obj || typeof obj !== 'object' || !obj.apiVersion || !obj.kind) {
        setProblems([{ message: 'The YAML must be one object with apiVersion and kind.' }]);
        return;
      }
      const [group, version] = obj.apiVersion.includes('/') ? obj.apiVersion.split('/') : ['', obj.apiVersion];
      const info = fixed?.info ?? resources.find((r) => r.group === group && r.kind === obj.kind && !r.resource.includes('/'));
      if (!info) {
        setProblems([{ line: lineOf(text, 'kind'), field: 'kind', message: `this workspace serves no ${obj.kind} in ${gv(group!, version!)}` }]);
        return;
      }
      const name = obj.metadata?.name;
      if (!name) {
        setProblems([{ line: lineOf(text, 'metadata'), field: 'metadata.name', message: 'a name is required' }]);
        return;
      }
      const ns = info.namespaced ? (obj.metadata?.namespace ?? 'default') : undefined;
      const path = resourcePath(ws, { group: group!, version: version!, resource: info.resource }, ns, name);
      const result = await session.api.request('PATCH', `${path}?fieldManager=atrium-console&fieldValidation=Strict${force ? '&force=true' : ''}`, {
        body: text,
        contentType: 'application/apply-patch+yaml',
      });
      setApplied(result);
      if (!fixed) location.hash = href({ ws, view: 'object', group: group!, version: version!, resource: info.resource, namespace: ns, name });
      else onDone?.();
    } catch (err) {
      const e = err as ApiError;
      setError(e);
      const ps: Problem[] = e.causes.map((c) => ({ field: c.field, message: c.message ?? '', line: c.field ? lineOf(text, c.field) : undefined }));
      // Unknown fields are named in the message: strict validation's `unknown field "spec.foo"`, and server-side
      // apply's `.spec.foo: field not declared in schema` (a 500, as kube-apiserver answers it).
      for (const m of e.message.matchAll(/unknown field "([^"]+)"|\.([^\s:]+): field not declared in schema/g)) {
        const field = m[1] ?? m[2]!;
        ps.push({ field, message: 'unknown field', line: lineOf(text, field) });
      }
      setProblems(ps);
    } finally {
      setBusy(false);
    }
  };

  const goTo = (line: number) => {
    const el = area.current;
    if (!el) return;
    const offset = text.split('\n').slice(0, line - 1).join('\n').length + (line > 1 ? 1 : 0);
    el.focus();
    el.setSelectionRange(offset, offset);
  };

  return (
    <div class="editor-wrap">
      <div class="editor">
        <div class="gutter" ref={gutter} aria-hidden="true">
          {Array.from({ length: lines }, (_, i) => (
            <div key={i} class={badLines.has(i + 1) ? 'bad' : ''}>
              {i + 1}
            </div>
          ))}
        </div>
        <textarea
          ref={area}
          aria-label="YAML editor"
          data-testid="yaml-editor"
          spellcheck={false}
          value={text}
          onInput={(e) => setText((e.target as HTMLTextAreaElement).value)}
          onScroll={(e) => {
            if (gutter.current) gutter.current.scrollTop = (e.target as HTMLTextAreaElement).scrollTop;
          }}
          onKeyDown={(e) => {
            if (e.key === 'Tab' && !e.shiftKey && !e.ctrlKey) {
              // Two spaces, as YAML wants; Escape then Tab leaves the editor (keyboard users are not trapped).
              if ((e.currentTarget as HTMLTextAreaElement).dataset.escaped === '1') return;
              e.preventDefault();
              const t = e.currentTarget as HTMLTextAreaElement;
              const s = t.selectionStart;
              t.setRangeText('  ', s, t.selectionEnd, 'end');
              setText(t.value);
            } else if (e.key === 'Escape') (e.currentTarget as HTMLTextAreaElement).dataset.escaped = '1';
            else if ((e.ctrlKey || e.metaKey) && e.key === 'Enter') void apply();
            else delete (e.currentTarget as HTMLTextAreaElement).dataset.escaped;
          }}
        />
      </div>
      <div class="toolbar">
        <button class="primary" onClick={apply} disabled={busy} data-testid="apply">
          {busy ? 'Applying…' : 'Apply'}
        </button>
        <label class="check">
          <input type="checkbox" checked={force} onChange={(e) => setForce((e.target as HTMLInputElement).checked)} /> Force conflicts
        </label>
        {onDone && (
          <button class="link" onClick={onDone}>
            Cancel
          </button>
        )}
        <span class="muted small">Ctrl+Enter applies; Esc then Tab leaves the editor.</span>
      </div>
      {applied && <p class="ok">Applied.</p>}
      {(problems.length > 0 || error) && (
        <div class="error" role="alert" data-testid="apply-error">
          {error && <strong>{error.code === 422 ? 'The server refused the object' : `Error ${error.code || ''}`}: </strong>}
          {error && <span>{error.message}</span>}
          <ul>
            {problems.map((p, i) => (
              <li key={i}>
                {p.line !== undefined ? (
                  <button class="link" onClick={() => goTo(p.line!)} data-testid="problem-line">
                    line {p.line}
                  </button>
                ) : null}{' '}
                {p.field && <code>{p.field}</code>} {p.message}
              </li>
            ))}
          </ul>
        </div>
      )}
    </div>
  );
}

/** The object's Events (core/v1, by involvedObject.uid), live, newest last. */
function Events({ session, ws, obj }: { session: Session; ws: string; obj: KubeObject }) {
  const ns = obj.metadata?.namespace;
  const path = `/clusters/${ws}/api/v1${ns ? `/namespaces/${encodeURIComponent(ns)}` : ''}/events?fieldSelector=${encodeURIComponent(`involvedObject.uid=${obj.metadata!.uid}`)}`;
  const events = useWatchedObjects(session.api, path);
  const items = [...events.items].sort((a, b) => String(a.lastTimestamp ?? a.eventTime ?? '').localeCompare(String(b.lastTimestamp ?? b.eventTime ?? '')));
  return (
    <section aria-labelledby="events-title" class="events">
      <h2 id="events-title">Events</h2>
      {events.error && <ErrorBox error={events.error} what="the events" />}
      {!events.error && items.length === 0 && <p class="muted small">No events.</p>}
      {items.length > 0 && (
        <table data-testid="events">
          <thead>
            <tr>
              <th>TYPE</th>
              <th>REASON</th>
              <th>AGE</th>
              <th>FROM</th>
              <th>MESSAGE</th>
            </tr>
          </thead>
          <tbody>
            {items.map((e) => (
              <tr key={e.metadata?.uid}>
                <td class={e.type === 'Warning' ? 'warn-text' : ''}>{String(e.type ?? '')}</td>
                <td>{String(e.reason ?? '')}</td>
                <td>{age(String(e.lastTimestamp ?? e.eventTime ?? e.metadata?.creationTimestamp ?? ''))}</td>
                <td>{String((e.source as { component?: string } | undefined)?.component ?? e.reportingComponent ?? '')}</td>
                <td>{String(e.message ?? '')}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
