/** Parsing of the `atrium pcluster` flags that have their own syntax: --node-capacity and --ready-delay. */
import { isQuantity } from '../apimachinery/quantity.js';

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

const durationUnits: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** A Go-style duration (`1s`, `500ms`, `1m30s`, `0`) in milliseconds. Throws on anything else. */
export function parseDuration(text: string): number {
  const t = text.trim();
  if (t === '0') return 0;
  const re = /(\d+(?:\.\d+)?)(ms|s|m|h)/gy;
  let total = 0;
  let consumed = 0;
  for (let m = re.exec(t); m; m = re.exec(t)) {
    total += Number(m[1]) * durationUnits[m[2]!]!;
    consumed = re.lastIndex;
  }
  if (consumed === 0 || consumed !== t.length) throw new Error(`invalid duration "${text}": use a number with a unit, such as 1s, 500ms or 1m30s`);
  return total;
}
