/**
 * `kubectl atrium console [--kubeconfig FILE] [--url] [--no-browser]`: opens the web console signed in with the
 * current context's identity. The console's address is the context's server (https://host:port) + /console/; the
 * token and the workspace the context points into (`/clusters/<path>`, root otherwise) travel in the URL's fragment,
 * which browsers never send to the server; the app moves the token into the tab's sessionStorage and removes it from
 * the address bar. A context that authenticates with a client certificate only has no token to hand over: the
 * command says so (paste a token, e.g. a ServiceAccount's from `kubectl create token`).
 */
import { spawn } from 'node:child_process';
import { clusterFromServerURL, readKubeconfig } from '../client/kubeconfig/kubeconfig.js';
import { consolePath } from './plugin.js';

export interface ConsoleCommandOptions {
  kubeconfig?: string;
  /** Print the sign-in URL (with the token) on stdout instead of opening a browser. */
  url?: boolean;
  /** Do not open a browser; print where the console is. */
  browser?: boolean;
}

/** The console's address and the sign-in URL (carrying the token) for the kubeconfig's current context. */
export async function consoleSignInURL(kubeconfigPath: string): Promise<{ consoleURL: string; signInURL: string; workspace: string }> {
  const kc = await readKubeconfig(kubeconfigPath);
  const server = new URL(kc.currentServer());
  const workspace = clusterFromServerURL(server.href) ?? 'root';
  const consoleURL = `${server.protocol}//${server.host}${consolePath}`;
  const creds = await kc.currentCredentials();
  if (!creds.token) {
    throw new Error(
      `the current context (${kc.currentContextName()}) has no bearer token to sign in with (it uses ${creds.certPem ? 'a client certificate' : 'no credentials'}); ` +
        `open ${consoleURL} and paste a token, e.g. one from \`kubectl create token <serviceaccount>\``,
    );
  }
  return { consoleURL, workspace, signInURL: `${consoleURL}#token=${encodeURIComponent(creds.token)}&ws=${encodeURIComponent(workspace)}` };
}

/** The platform's "open this URL" command. */
function openerFor(url: string): [string, string[]] {
  if (process.platform === 'darwin') return ['open', [url]];
  if (process.platform === 'win32') return ['cmd', ['/c', 'start', '""', url]];
  return ['xdg-open', [url]];
}

export async function consoleCommand(opts: ConsoleCommandOptions, out: (line: string) => void, err: (line: string) => void): Promise<void> {
  const path = opts.kubeconfig ?? process.env.KUBECONFIG?.split(':')[0] ?? `${process.env.HOME}/.kube/config`;
  const { consoleURL, signInURL, workspace } = await consoleSignInURL(path);
  if (opts.url) {
    out(signInURL);
    return;
  }
  if (opts.browser === false) {
    out(`The atrium console is at ${consoleURL}; run \`kubectl atrium console --url\` for a sign-in link with your token.`);
    return;
  }
  const [cmd, args] = openerFor(signInURL);
  const opened = await new Promise<boolean>((resolve) => {
    const child = spawn(cmd, args, { stdio: 'ignore', detached: true });
    child.once('error', () => resolve(false));
    child.once('spawn', () => {
      child.unref();
      resolve(true);
    });
  });
  if (opened) out(`Opening the atrium console at ${consoleURL} (workspace ${workspace}) in your browser.`);
  else err(`Cannot start a browser (${cmd}); open the link \`kubectl atrium console --url\` prints instead.`);
  out('The server\'s certificate is signed by atrium\'s own CA (<root-dir>/pki/ca.crt): trust it in your browser or accept the warning once.');
}
