/** Parsing of the `atrium pcluster` flags that have their own syntax: --node-capacity, --storage-capacity (--ready-delay is a Go duration, --load-balancer-cidr see ip-pool.ts). */
import { integerValue, isQuantity } from '../apimachinery/quantity.js';

export const defaultNodeCapacity = 'cpu=4,memory=16Gi,pods=110';

/**
 * `cpu=4,memory=16Gi,pods=110` → {cpu: '4', memory: '16Gi', pods: '110'}. Every value must be a quantity; cpu,
 * memory and pods default to the values above when not given. Throws with a message naming the bad entry.
 */
export function parseNodeCapacity(text: string): Record<string, string> {
  const out: Record<string, string> = { cpu: '4', memory: '16Gi', pods: '110' };
  for (const part of text.split(',').map((p) => p.trim()).filter(Boolean)) {
    const eq = part.indexOf('=');
    if (eq <= 0) throw new Error(`invalid node capacity entry "${part}": expected name=quantity`);
    const name = part.slice(0, eq).trim();
    const value = part.slice(eq + 1).trim();
    if (!isQuantity(value)) throw new Error(`invalid node capacity entry "${part}": "${value}" is not a quantity`);
    out[name] = value;
  }
  return out;
}


/** The simulated provisioner's default capacity: generous, so that only a test that means to runs out. */
export const defaultStorageCapacity = '1Ti';

/** `100Gi` → bytes; must be a positive quantity. Throws with a message naming the bad value. */
export function parseStorageCapacity(text: string): number {
  const value = text.trim();
  if (!isQuantity(value)) throw new Error(`invalid storage capacity "${text}": expected a quantity such as 100Gi`);
  const bytes = integerValue(value);
  if (!(bytes > 0)) throw new Error(`invalid storage capacity "${text}": must be greater than zero`);
  return bytes;
}

/**
 * The images the simulated registry lacks by default: those whose registry is `invalid.*` or whose tag says the image
 * does not exist (`:nonexistent`, `:non-existent`, `:does-not-exist`, `:404`), as manifests and test suites name an
 * image meant to fail its pull. Every other image is "already present on machine".
 */
export const defaultMissingImages = '(^|/)invalid\\.|:(non-?existent|does-?not-?exist|404)$';

/** A --missing-images pattern as a RegExp (an empty pattern: every image exists). Throws naming a bad pattern. */
export function parseMissingImages(text: string): RegExp | undefined {
  if (text === '') return undefined;
  try {
    return new RegExp(text);
  } catch (err) {
    throw new Error(`invalid image pattern "${text}": ${(err as Error).message}`);
  }
}
