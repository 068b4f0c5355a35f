const { startTestServer } = await import('/work/main/dist/test/helpers/harness.js');
const { benchSchema, benchObject } = await import('/work/main/dist/bench/crd-api.js');
const which = process.argv[2];
const schema = which === 'full' ? benchSchema : { type: 'object', properties: { spec: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true }, status: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } };
const ts = await startTestServer({});
const crd = { apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name: 'widgets.bench.example.com' }, spec: { group: 'bench.example.com', scope: 'Namespaced', names: { plural: 'widgets', kind: 'Widget' }, versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: schema } }] } };
let r = await ts.request('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', crd);
for (let i = 0; i < 200; i++) { r = await ts.request('GET', '/apis/bench.example.com/v1/namespaces/default/widgets'); if (r.status === 200) break; await new Promise(r => setTimeout(r, 20)); }
const N = 6000; let next = 0;
const t0 = process.cpuUsage();
await Promise.all(Array.from({ length: 32 }, async () => { while (next < N) { const i = next++; const o = benchObject('Widget', 'w-' + i); o.metadata.namespace = 'default'; const x = await ts.request('POST', '/apis/bench.example.com/v1/namespaces/default/widgets', o); if (x.status !== 201) throw new Error(x.text); } }));
const u = process.cpuUsage(t0); console.log(which, 'process µs/op (incl. client)', ((u.user + u.system) / N).toFixed(0));
await ts.stop();
