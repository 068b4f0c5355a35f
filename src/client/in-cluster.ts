import { readFileSync } from 'node:fs';
import { RestClient } from './rest-client.js';

/** In-cluster credentials (pull mode): the pod's ServiceAccount token and CA, KUBERNETES_SERVICE_HOST/PORT. */
export function inClusterClient(name: string): RestClient {
  const dir = '/var/run/secrets/kubernetes.io/serviceaccount';
  const host = process.env.KUBERNETES_SERVICE_HOST;
  const port = process.env.KUBERNETES_SERVICE_PORT ?? '443';
  if (!host) throw new Error('--to-kubeconfig=in-cluster needs KUBERNETES_SERVICE_HOST (run inside a pod)');
  return new RestClient({ url: `https://${host.includes(':') ? `[${host}]` : host}:${port}`, ca: readFileSync(`${dir}/ca.crt`, 'utf8'), token: readFileSync(`${dir}/token`, 'utf8').trim(), userAgent: `atrium-syncer/${name}` });
}
