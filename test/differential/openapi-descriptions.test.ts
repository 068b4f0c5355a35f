/**
 * The descriptions in atrium's /openapi/v2 against the real kube-apiserver's (1.32): every definition both serve, its
 * own description and its properties'. atrium takes Kubernetes' texts from kubernetes-types 1.30.0, so a text may
 * differ only where 1.30 and 1.32 differ (atrium's text is then the package's) or where the package lacks the type or
 * field (atrium's own words); ObjectMeta, which `kubectl explain <crd>.metadata` prints, must agree in full.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { upstreamFieldDescription, upstreamTypeDescription } from '../../src/apiserver/openapi/upstream-descriptions.js';
import { startAtrium, startReference, type Target } from './targets.js';

type Obj = Record<string, any>;
let kube: Target;
let atrium: Target;

before(async () => {
  kube = await startReference();
  atrium = await startAtrium(false);
});
after(async () => {
  await atrium?.stop();
  await kube?.stop();
});

async function definitions(t: Target): Promise<Record<string, Obj>> {
  const r = await t.request('GET', '/openapi/v2', undefined, { Accept: 'application/json' });
  assert.equal(r.status, 200);
  return (r.json as Obj).definitions;
}

test("/openapi/v2 descriptions match kube-apiserver's, but for 1.30 → 1.32 changes", async (t) => {
  const [k, a] = await Promise.all([definitions(kube), definitions(atrium)]);
  let same = 0;
  const drift: string[] = [];
  const enumList: string[] = [];
  const own: string[] = [];
  const wrong: string[] = [];
  const compare = (where: string, ours: unknown, theirs: unknown, published: string | undefined) => {
    if (ours === theirs) same++;
    // kube-apiserver appends its enum types' values to the description ("Possible enum values: ..."), as neither the
    // package nor atrium's catalog does.
    else if (typeof ours === 'string' && typeof theirs === 'string' && theirs.startsWith(`${ours}\n\nPossible enum values:`)) enumList.push(where);
    else if (published !== undefined && ours === published) drift.push(where);
    else if (published === undefined) own.push(where);
    else wrong.push(where);
  };
  for (const [name, kd] of Object.entries(k)) {
    const ad = a[name];
    if (!ad) continue;
    compare(name, ad.description, kd.description, upstreamTypeDescription(name));
    for (const [f, kp] of Object.entries((kd.properties ?? {}) as Obj)) {
      const ap = ad.properties?.[f];
      if (ap) compare(`${name}.${f}`, ap.description, kp.description, upstreamFieldDescription(name, f));
    }
  }
  t.diagnostic(
    `${same} descriptions agree; ${enumList.length} lack kube-apiserver's list of enum values; ${drift.length} differ as kubernetes-types 1.30.0 ` +
      `differs from 1.32; ${own.length} are atrium's own (no text in the package)`,
  );
  t.diagnostic(`1.30 vs 1.32: ${drift.join(', ')}`);
  t.diagnostic(`own: ${own.join(', ')}`);
  assert.deepEqual(wrong, [], "atrium's text is neither kube-apiserver's nor the package's");
  const meta = 'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta';
  assert.deepEqual([...drift, ...own].filter((w) => w === meta || w.startsWith(`${meta}.`)), [], 'ObjectMeta must agree in full');
  assert.ok(same > 1000, `only ${same} agree`);
  assert.ok(drift.length + own.length < same / 8, `${drift.length} drift, ${own.length} own`);
});
