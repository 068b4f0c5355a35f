/** Sign-in: a bearer token (what kubectl sends) and the workspace to open; `kubectl atrium console` skips this. */
import { useState } from 'preact/hooks';

export function SignIn({ onSignIn, error }: { onSignIn: (token: string, ws: string) => Promise<void>; error: string }) {
  const [token, setToken] = useState('');
  const [ws, setWs] = useState('root');
  const [busy, setBusy] = useState(false);
  return (
    <main class="signin">
      <form
        aria-labelledby="signin-title"
        onSubmit={async (e) => {
          e.preventDefault();
          setBusy(true);
          await onSignIn(token.trim(), ws.trim() || 'root');
          setBusy(false);
        }}
      >
        <h1 id="signin-title">atrium console</h1>
        <p>
          Sign in with the bearer token kubectl uses, or run <code>kubectl atrium console</code> to open the console
          with your current context's identity.
        </p>
        <label for="token">Bearer token</label>
        <textarea id="token" name="token" rows={3} required autoFocus value={token} onInput={(e) => setToken((e.target as HTMLTextAreaElement).value)} spellcheck={false} autoComplete="off" />
        <label for="ws">Workspace</label>
        <input id="ws" name="workspace" value={ws} onInput={(e) => setWs((e.target as HTMLInputElement).value)} spellcheck={false} />
        {error && (
          <p class="error" role="alert" data-testid="signin-error">
            {error}
          </p>
        )}
        <button type="submit" class="primary" disabled={busy || !token.trim()}>
          {busy ? 'Signing in…' : 'Sign in'}
        </button>
      </form>
    </main>
  );
}
