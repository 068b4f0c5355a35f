/**
 * The atrium web console: sign-in, then a workspace's tree, resources, clusters and placement. Routes live in the
 * URL's fragment (#/ws/<path>/...), so the server serves one index.html. The token is kept in sessionStorage (this
 * tab only); `kubectl atrium console` opens the app with `#token=...&ws=...`, which is read once and removed from
 * the address bar.
 */
import { render } from 'preact';
import { useEffect, useMemo, useState } from 'preact/hooks';
import { Api, ApiError } from './api';
import { href, parseRoute, type Route, type Session } from './route';
import { SignIn } from './views/signin';
import { Workspaces } from './views/workspaces';
import { ResourceList, ResourceNav } from './views/resources';
import { ObjectView, NewObject } from './views/object';
import { Clusters } from './views/clusters';
import { Placement } from './views/placement';
import './style.css';

const TOKEN_KEY = 'atrium.console.token';
const WS_KEY = 'atrium.console.workspace';

function useHash(): string {
  const [hash, setHash] = useState(location.hash);
  useEffect(() => {
    const on = () => setHash(location.hash);
    addEventListener('hashchange', on);
    return () => removeEventListener('hashchange', on);
  }, []);
  return hash;
}

/** A token handed in the fragment by `kubectl atrium console`: stored, then removed from the address bar. */
function takeFragmentToken(): void {
  const m = /^#token=([^&]+)(?:&ws=([^&]+))?/.exec(location.hash);
  if (!m) return;
  sessionStorage.setItem(TOKEN_KEY, decodeURIComponent(m[1]!));
  const ws = m[2] ? decodeURIComponent(m[2]) : 'root';
  sessionStorage.setItem(WS_KEY, ws);
  history.replaceState(null, '', `${location.pathname}#/ws/${ws}`);
}

function App() {
  const [session, setSession] = useState<Session | undefined>();
  const [checking, setChecking] = useState(true);
  const [signInError, setSignInError] = useState('');
  const hash = useHash();

  const signIn = async (token: string, ws: string) => {
    const api = new Api(token);
    try {
      const who = await api.whoami(ws);
      sessionStorage.setItem(TOKEN_KEY, token);
      sessionStorage.setItem(WS_KEY, ws);
      setSignInError('');
      setSession({
        api,
        user: who.username,
        groups: who.groups,
        signOut: () => {
          sessionStorage.removeItem(TOKEN_KEY);
          setSession(undefined);
          location.hash = '';
        },
      });
      if (!location.hash.startsWith('#/ws/')) location.hash = `#/ws/${ws}`;
    } catch (err) {
      const e = err as ApiError;
      setSignInError(e.code === 401 ? 'The token was not accepted (401 Unauthorized).' : e.code === 403 ? `This identity has no access to workspace ${ws}: ${e.message}` : e.message);
      sessionStorage.removeItem(TOKEN_KEY);
    }
  };

  useEffect(() => {
    takeFragmentToken();
    const token = sessionStorage.getItem(TOKEN_KEY);
    if (token) void signIn(token, sessionStorage.getItem(WS_KEY) ?? 'root').finally(() => setChecking(false));
    else setChecking(false);
    // A sign-in link opened in a tab that already shows the console changes only the fragment.
    const onHash = () => {
      if (!location.hash.startsWith('#token=')) return;
      takeFragmentToken();
      void signIn(sessionStorage.getItem(TOKEN_KEY) ?? '', sessionStorage.getItem(WS_KEY) ?? 'root');
    };
    addEventListener('hashchange', onHash);
    return () => removeEventListener('hashchange', onHash);
  }, []);

  if (checking) return <p class="center">Signing in…</p>;
  if (!session) return <SignIn onSignIn={signIn} error={signInError} />;
  return <Shell session={session} route={parseRoute(hash, sessionStorage.getItem(WS_KEY) ?? 'root')} />;
}

function Shell({ session, route }: { session: Session; route: Route }) {
  const [navOpen, setNavOpen] = useState(false);
  useEffect(() => setNavOpen(false), [route.ws, route.view, route.resource]);
  const crumbs = useMemo(() => route.ws.split(':').map((_, i, all) => all.slice(0, i + 1).join(':')), [route.ws]);
  let main;
  switch (route.view) {
    case 'workspaces':
      main = <Workspaces session={session} ws={route.ws} />;
      break;
    case 'list':
      main = <ResourceList key={`${route.ws}/${route.group}/${route.resource}`} session={session} route={route} />;
      break;
    case 'object':
      main = <ObjectView key={`${route.ws}/${route.resource}/${route.namespace}/${route.name}`} session={session} route={route} />;
      break;
    case 'new':
      main = <NewObject session={session} ws={route.ws} />;
      break;
    case 'clusters':
      main = <Clusters session={session} ws={route.ws} />;
      break;
    case 'placement':
      main = <Placement session={session} ws={route.ws} />;
      break;
  }
  return (
    <div class="shell">
      <a class="skip" href="#main">
        Skip to content
      </a>
      <header class="top">
        <button class="menu" aria-expanded={navOpen} aria-controls="nav" onClick={() => setNavOpen(!navOpen)} aria-label="Menu">
          ☰
        </button>
        <a class="brand" href={href({ ws: route.ws, view: 'workspaces' })}>
          atrium
        </a>
        <nav class="crumbs" aria-label="Workspace path" data-testid="breadcrumbs">
          {crumbs.map((p, i) => (
            <span key={p}>
              {i > 0 && <span class="sep">:</span>}
              <a href={href({ ws: p, view: 'workspaces' })} aria-current={p === route.ws ? 'page' : undefined}>
                {p.split(':').at(-1)}
              </a>
            </span>
          ))}
        </nav>
        <span class="user" data-testid="user" title={session.groups.join(', ')}>
          {session.user}
        </span>
        <button class="link" onClick={session.signOut}>
          Sign out
        </button>
      </header>
      <div class="body">
        <aside id="nav" class={`nav${navOpen ? ' open' : ''}`} aria-label="Navigation">
          <ul class="views">
            {(
              [
                ['workspaces', 'Workspaces'],
                ['clusters', 'Clusters'],
                ['placement', 'Placement'],
              ] as const
            ).map(([v, label]) => (
              <li key={v}>
                <a href={href({ ws: route.ws, view: v })} aria-current={route.view === v ? 'page' : undefined}>
                  {label}
                </a>
              </li>
            ))}
          </ul>
          <ResourceNav session={session} ws={route.ws} current={route} />
        </aside>
        <main id="main" tabIndex={-1}>
          {main}
        </main>
      </div>
    </div>
  );
}

render(<App />, document.getElementById('app')!);
