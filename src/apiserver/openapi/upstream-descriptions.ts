/**
 * Kubernetes' published descriptions of its API types and their fields, read at run time from the npm package
 * `kubernetes-types` (version 1.30.0, a dependency; Kubernetes 1.32 differs from it in a few texts, where atrium then
 * serves 1.30's wording). Its `.d.ts` files are generated from Kubernetes' OpenAPI document and carry each definition's
 * and each property's `description` as the JSDoc comment above the interface (or type alias) and above the property.
 *
 * Nothing here holds Kubernetes' prose: the files are parsed lazily on the first lookup. Their format is regular (one
 * `export interface Name {` per definition, properties indented four spaces, `}` at column 0), and a comment is either
 * `/** text *\/` on one line or a block whose lines are ` * text`; the block's lines, with that prefix removed, joined by
 * "\n", are the description exactly as the OpenAPI document has it (paragraphs are separated by an empty line, so
 * "\n\n"). test/unit/openapi/upstream-descriptions.test.ts compares the result with Kubernetes 1.32's swagger.json.
 *
 * Definition names map from the files' paths as the OpenAPI document names them: `core/v1.d.ts` ObjectReference →
 * io.k8s.api.core.v1.ObjectReference, `meta/v1.d.ts` → io.k8s.apimachinery.pkg.apis.meta.v1.*, `apiextensions/v1.d.ts`
 * → io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.*, `runtime.d.ts`, `api/resource.d.ts` and `version.d.ts`
 * → io.k8s.apimachinery.pkg.{runtime,api.resource,version}.*.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

/** One definition's descriptions: its own, and its properties' by JSON name. */
export interface DefinitionDescriptions {
  description?: string;
  fields: Map<string, string>;
}

let cache: Map<string, DefinitionDescriptions> | undefined;

/** The definition-name prefix of a kubernetes-types file (path relative to the package, without `.d.ts`). */
export function definitionPrefixForFile(file: string): string | undefined {
  if (file === 'runtime') return 'io.k8s.apimachinery.pkg.runtime';
  if (file === 'version') return 'io.k8s.apimachinery.pkg.version';
  if (file === 'api/resource') return 'io.k8s.apimachinery.pkg.api.resource';
  const m = /^([a-z0-9]+)\/(v[0-9]+(?:(?:alpha|beta)[0-9]+)?)$/.exec(file);
  if (!m) return undefined;
  const [, group, version] = m;
  if (group === 'meta') return `io.k8s.apimachinery.pkg.apis.meta.${version}`;
  if (group === 'apiextensions') return `io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.${version}`;
  return `io.k8s.api.${group}.${version}`;
}

const PROPERTY = /^ {4}(?:readonly )?(?:"([^"]+)"|([A-Za-z_$][\w$]*))\??:/;
const DECLARATION = /^export (?:interface|type) ([A-Za-z_$][\w$]*)\b/;

/**
 * Parses one generated `.d.ts` file into definition descriptions, keyed by the bare type name. A comment applies to
 * the declaration or property on the line right after it; comments before anything else are ignored.
 */
export function parseTypesFile(text: string): Map<string, DefinitionDescriptions> {
  const out = new Map<string, DefinitionDescriptions>();
  const lines = text.split('\n');
  let pending: string | undefined;
  let current: DefinitionDescriptions | undefined;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const trimmed = line.trim();
    if (trimmed.startsWith('/**')) {
      if (trimmed.endsWith('*/') && trimmed.length >= 5) {
        pending = trimmed.slice(3, -2).replace(/^ /, '').replace(/ $/, '');
      } else {
        const body: string[] = [];
        const first = trimmed.slice(3).replace(/^ /, '');
        if (first !== '') body.push(first);
        for (i++; i < lines.length; i++) {
          const l = lines[i]!;
          if (/^\s*\*\/\s*$/.test(l)) break;
          body.push(l.replace(/^\s*\* ?/, ''));
        }
        pending = body.join('\n');
      }
      continue;
    }
    const decl = DECLARATION.exec(line);
    if (decl) {
      const entry: DefinitionDescriptions = { fields: new Map() };
      if (pending !== undefined) entry.description = pending;
      out.set(decl[1]!, entry);
      current = line.trimEnd().endsWith('{') && line.startsWith('export interface') ? entry : undefined;
      pending = undefined;
      continue;
    }
    if (line.startsWith('}')) {
      current = undefined;
      pending = undefined;
      continue;
    }
    const prop = current ? PROPERTY.exec(line) : null;
    if (prop && current && pending !== undefined) current.fields.set(prop[1] ?? prop[2]!, pending);
    if (trimmed !== '') pending = undefined;
  }
  return out;
}

/** The package's directory, or undefined if it is not installed. */
function packageDir(): string | undefined {
  try {
    return dirname(createRequire(import.meta.url).resolve('kubernetes-types/package.json'));
  } catch {
    return undefined;
  }
}

function listTypeFiles(dir: string, rel = ''): string[] {
  const out: string[] = [];
  for (const e of readdirSync(join(dir, rel), { withFileTypes: true })) {
    const path = rel ? `${rel}/${e.name}` : e.name;
    if (e.isDirectory()) out.push(...listTypeFiles(dir, path));
    else if (e.name.endsWith('.d.ts')) out.push(path.slice(0, -'.d.ts'.length));
  }
  return out.sort();
}

/** The package's type files that name definitions, read once: path (without `.d.ts`), definition prefix, text. */
let filesCache: { file: string; prefix: string; text: string }[] | undefined;
function typeFiles(): { file: string; prefix: string; text: string }[] {
  if (filesCache) return filesCache;
  const out: { file: string; prefix: string; text: string }[] = [];
  const dir = packageDir();
  if (dir) {
    try {
      for (const file of listTypeFiles(dir)) {
        const prefix = definitionPrefixForFile(file);
        if (prefix) out.push({ file, prefix, text: readFileSync(join(dir, `${file}.d.ts`), 'utf8') });
      }
    } catch {
      out.length = 0;
    }
  }
  filesCache = out;
  return out;
}

/** Every definition's descriptions by OpenAPI definition name; empty if the package cannot be read. */
export function upstreamDescriptions(): ReadonlyMap<string, DefinitionDescriptions> {
  if (cache) return cache;
  const all = new Map<string, DefinitionDescriptions>();
  for (const { prefix, text } of typeFiles()) for (const [name, d] of parseTypesFile(text)) all.set(`${prefix}.${name}`, d);
  cache = all;
  return all;
}

/** Kubernetes' description of a definition (e.g. io.k8s.api.apps.v1.DeploymentSpec), if published. */
export function upstreamTypeDescription(definition: string): string | undefined {
  return upstreamDescriptions().get(definition)?.description;
}

/** Kubernetes' description of a definition's property, if published. */
export function upstreamFieldDescription(definition: string, field: string): string | undefined {
  return upstreamDescriptions().get(definition)?.fields.get(field);
}

/**
 * The description the published kinds most often give a property `field` whose TypeScript type matches `typePattern`
 * (a regular expression's source: `ObjectMeta` for `metadata`, `"[^"]*"` for a kind's `apiVersion`): the text
 * kube-apiserver's shared types (TypeMeta, PartialObjectMetadata) carry, which kubernetes-types does not publish on
 * their own. Ties go to the text first met in file order.
 */
export function commonFieldDescription(field: string, typePattern: string): string | undefined {
  const key = `${field}:${typePattern}`;
  const hit = commonCache.get(key);
  if (hit !== undefined || commonCache.has(key)) return hit;
  const counts = new Map<string, number>();
  const re = new RegExp(`^ {4}(?:readonly )?${field}\\??: (?:${typePattern});$`);
  const all = upstreamDescriptions();
  for (const { prefix, text } of typeFiles()) {
    // Which interfaces have `field` typed as `typePattern` says: scan declarations and their property lines.
    let iface: string | undefined;
    for (const line of text.split('\n')) {
      const decl = DECLARATION.exec(line);
      if (decl) iface = decl[1];
      else if (iface && re.test(line)) {
        const d = all.get(`${prefix}.${iface}`)?.fields.get(field);
        if (d !== undefined) counts.set(d, (counts.get(d) ?? 0) + 1);
      }
    }
  }
  let best: string | undefined;
  let bestCount = 0;
  for (const [d, n] of counts) if (n > bestCount) [best, bestCount] = [d, n];
  commonCache.set(key, best);
  return best;
}
const commonCache = new Map<string, string | undefined>();
