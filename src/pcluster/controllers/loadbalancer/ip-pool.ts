/**
 * The simulated cluster's load-balancer address pool: an IPv4 CIDR whose addresses are handed to LoadBalancer
 * Services (and the first of them to the simulated ingress controller). The addresses are only strings in status;
 * nothing listens on them.
 */
import { createHash } from 'node:crypto';

export interface IPv4Pool {
  /** The CIDR as given, normalised (`172.18.200.0/24`). */
  cidr: string;
  /** The first and last assignable address, as 32-bit numbers. */
  first: number;
  last: number;
}

function parseIPv4(text: string): number | undefined {
  const parts = text.split('.');
  if (parts.length !== 4 || parts.some((p) => !/^(0|[1-9]\d{0,2})$/.test(p) || Number(p) > 255)) return undefined;
  return parts.reduce((n, p) => n * 256 + Number(p), 0);
}

export function formatIPv4(n: number): string {
  return [n >>> 24, (n >>> 16) & 255, (n >>> 8) & 255, n & 255].join('.');
}

/**
 * Parses `a.b.c.d/len` (IPv4 only). The network and broadcast addresses are not handed out, except in a /31 or /32.
 * Throws with a message naming the problem.
 */
export function parsePool(cidr: string): IPv4Pool {
  const m = /^([^/]+)\/(\d{1,2})$/.exec(cidr.trim());
  const ip = m ? parseIPv4(m[1]!) : undefined;
  const bits = m ? Number(m[2]) : NaN;
  if (ip === undefined || !(bits >= 0 && bits <= 32)) throw new Error(`invalid CIDR "${cidr}": expected an IPv4 network such as 172.18.200.0/24`);
  const size = 2 ** (32 - bits);
  const network = Math.floor(ip / size) * size;
  if (network !== ip) throw new Error(`invalid CIDR "${cidr}": the address has bits set beyond the prefix (the network is ${formatIPv4(network)}/${bits})`);
  const first = bits >= 31 ? network : network + 1;
  const last = bits >= 31 ? network + size - 1 : network + size - 2;
  return { cidr: `${formatIPv4(network)}/${bits}`, first, last };
}

/**
 * The default pool of a cluster: `172.18.<n>.0/24` on kind's docker network, with n in 100–249 derived from the
 * cluster name, so clusters started side by side get different addresses (the nodes use 172.18.0.x).
 */
export function defaultPoolCIDR(clusterName: string): string {
  const n = 100 + (createHash('sha256').update(clusterName).digest().readUInt32BE(0) % 150);
  return `172.18.${n}.0/24`;
}

export function poolContains(pool: IPv4Pool, ip: string): boolean {
  const n = parseIPv4(ip);
  return n !== undefined && n >= pool.first && n <= pool.last;
}

/** The simulated ingress controller's address: the pool's first. */
export function ingressControllerAddress(pool: IPv4Pool): string {
  return formatIPv4(pool.first);
}

export type Allocation = { ip: string } | { error: string };

/**
 * The address for a LoadBalancer Service: the one it has if that is still its own (in the pool, or the one it asked
 * for, and not taken by another Service), else the one it asks for in spec.loadBalancerIP if free, else the lowest
 * free address of the pool after the ingress controller's.
 */
export function allocateAddress(pool: IPv4Pool, usedByOthers: ReadonlySet<string>, current: string | undefined, requested: string | undefined): Allocation {
  if (requested) {
    if (parseIPv4(requested) === undefined) return { error: `invalid loadBalancerIP "${requested}": not an IPv4 address` };
    if (usedByOthers.has(requested) || requested === ingressControllerAddress(pool)) return { error: `requested loadBalancerIP "${requested}" is already in use` };
    return { ip: requested };
  }
  if (current && poolContains(pool, current) && !usedByOthers.has(current) && current !== ingressControllerAddress(pool)) return { ip: current };
  for (let n = pool.first + 1; n <= pool.last; n++) {
    const ip = formatIPv4(n);
    if (!usedByOthers.has(ip)) return { ip };
  }
  return { error: `no free address left in the load-balancer pool ${pool.cidr}` };
}
