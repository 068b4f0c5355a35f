import type { ServerResponse } from 'node:http';
import { stringify as yamlStringify } from 'yaml';
import type { KubeObject } from '../../apimachinery/object.js';
import { buildTable } from '../../apimachinery/table/table.js';
import type { ResourceDefinition } from '../../registry/rest.js';
import { protobufMediaType, type ObjectOutput } from '../http/negotiation.js';
import { writeJson, writeRaw } from '../http/response.js';
import { groupVersionString } from '../../apimachinery/api-resource.js';
import {
  encodeKubernetesProtobuf,
  encodeKubernetesProtobufList,
  encodeKubernetesProtobufListItem,
  encodeKubernetesProtobufListOfEncoded,
  encodeWatchEventFrame,
  protobufTypeFor,
} from '../../apimachinery/protobuf/encode.js';

const protobufForm = new WeakMap<ResourceDefinition, boolean>();

/** Whether the resource's kind has a protobuf form (built-in kinds; not custom resources), cached per definition. */
export function servesProtobuf(def: ResourceDefinition): boolean {
  let known = protobufForm.get(def);
  if (known === undefined) protobufForm.set(def, (known = protobufTypeFor(def.group, def.version, def.kind) !== undefined));
  return known;
}

/** Whether this object (by its own apiVersion and kind: a Status, a Scale, a TokenRequest ...) has a protobuf form. */
function objectHasProtobuf(obj: KubeObject): boolean {
  const apiVersion = obj.apiVersion ?? '';
  const slash = apiVersion.indexOf('/');
  return protobufTypeFor(slash < 0 ? '' : apiVersion.slice(0, slash), slash < 0 ? apiVersion : apiVersion.slice(slash + 1), obj.kind ?? '') !== undefined;
}

function protobufBody(obj: KubeObject): Buffer {
  const bytes = encodeKubernetesProtobuf(obj as Record<string, unknown>);
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length);
}

export interface ListMeta {
  resourceVersion: string;
  continue?: string;
  remainingItemCount?: number;
}

function partialOf(obj: KubeObject, version: string): KubeObject {
  return { kind: 'PartialObjectMetadata', apiVersion: `meta.k8s.io/${version}`, metadata: obj.metadata ?? {} };
}

/** Renders one object response in the negotiated form. */
export function writeObject(
  res: ServerResponse,
  code: number,
  obj: KubeObject,
  output: ObjectOutput,
  def: ResourceDefinition,
  headers: Record<string, string> = {},
): void {
  switch (output.kind) {
    case 'object':
      if (output.format === 'yaml') writeRaw(res, code, yamlStringify(obj), 'application/yaml', headers);
      else if (output.format === 'protobuf' && objectHasProtobuf(obj)) writeRaw(res, code, protobufBody(obj), protobufMediaType, headers);
      else writeJson(res, code, obj, 'application/json', headers);
      return;
    case 'partial':
      writeJson(res, code, partialOf(obj, output.version), `application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=${output.version}`, headers);
      return;
    case 'table': {
      const conv = def.tableConvertor;
      const now = Date.now();
      const table = buildTable([...conv.columns], [{ cells: conv.row(obj, now), object: obj }], { resourceVersion: obj.metadata?.resourceVersion ?? '' }, output.includeObject, {
        apiVersion: `meta.k8s.io/${output.version}`,
        rowMetadata: conv.rowMetadata,
      });
      writeJson(res, code, table, `application/json;as=Table;v=${output.version};g=meta.k8s.io`, headers);
      return;
    }
  }
}

/**
 * Renders a list response in the negotiated form. `shared`: the items are shared, unmutated objects (the store's read
 * cache, ListResult.shared), so their JSON and protobuf encodings are kept beside them and reused by the next list.
 */
export function writeList(res: ServerResponse, items: KubeObject[], meta: ListMeta, output: ObjectOutput, def: ResourceDefinition, shared = false): void {
  const listMeta: Record<string, unknown> = { resourceVersion: meta.resourceVersion };
  if (meta.continue) listMeta.continue = meta.continue;
  if (meta.remainingItemCount !== undefined) listMeta.remainingItemCount = meta.remainingItemCount;
  switch (output.kind) {
    case 'object': {
      const typed = def.codec.typedList === true;
      const list = { kind: def.listKind, apiVersion: groupVersionString(def.group, def.version), metadata: listMeta, items };
      if (shared && output.format === 'protobuf') {
        const encoded = items.map((item) => cachedProtobufItem(item, list.apiVersion, def.kind));
        writeRaw(res, 200, encodeKubernetesProtobufListOfEncoded(list.apiVersion, list.kind, listMeta, encoded), protobufMediaType);
      } else if (shared && output.format === 'json') writeSharedListJson(res, list, typed);
      else if (output.format === 'yaml') writeRaw(res, 200, yamlStringify(typed ? { ...list, items: items.map(withoutTypeMeta) } : list), 'application/yaml');
      else if (output.format === 'protobuf') {
        const bytes = encodeKubernetesProtobufList(list.apiVersion, list.kind, def.kind, listMeta, items as Record<string, unknown>[]);
        writeRaw(res, 200, Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length), protobufMediaType);
      } else writeListJson(res, list, typed);
      return;
    }
    case 'partial':
      writeJson(
        res,
        200,
        { kind: 'PartialObjectMetadataList', apiVersion: `meta.k8s.io/${output.version}`, metadata: listMeta, items: items.map((i) => partialOf(i, output.version)) },
        `application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=${output.version}`,
      );
      return;
    case 'table': {
      const conv = def.tableConvertor;
      const now = Date.now();
      const table = buildTable(
        [...conv.columns],
        items.map((obj) => ({ cells: conv.row(obj, now), object: obj })),
        listMeta as { resourceVersion: string; continue?: string; remainingItemCount?: number },
        output.includeObject,
        { apiVersion: `meta.k8s.io/${output.version}`, rowMetadata: conv.rowMetadata },
      );
      writeJson(res, 200, table, `application/json;as=Table;v=${output.version};g=meta.k8s.io`);
      return;
    }
  }
}

/**
 * An item of a typed list as kube-apiserver encodes it: without apiVersion and kind (the decoded Go object's empty
 * TypeMeta). A shallow copy; the object itself is left as it is (it is shared, and watch events carry both).
 */
function withoutTypeMeta(item: KubeObject): KubeObject {
  if (item.apiVersion === undefined && item.kind === undefined) return item;
  const { apiVersion: _apiVersion, kind: _kind, ...rest } = item;
  return rest as KubeObject;
}

/** The JSON of one list item; `typed`: a typed list's, without apiVersion and kind. */
function itemJson(item: KubeObject, typed: boolean): string {
  return JSON.stringify(typed ? withoutTypeMeta(item) : item);
}

/** Lists can be large: serialize item by item so one huge string is never built twice. */
function writeListJson(res: ServerResponse, list: { kind: string; apiVersion: string; metadata: unknown; items: KubeObject[] }, typed: boolean): void {
  const head = `{"kind":${JSON.stringify(list.kind)},"apiVersion":${JSON.stringify(list.apiVersion)},"metadata":${JSON.stringify(list.metadata)},"items":[`;
  const parts: string[] = [head];
  list.items.forEach((item, i) => parts.push(i ? `,${itemJson(item, typed)}` : itemJson(item, typed)));
  parts.push(']}');
  writeRaw(res, 200, parts.join(''), 'application/json');
}

const jsonItems = new WeakMap<object, Buffer>();
const typedJsonItems = new WeakMap<object, Buffer>();
const protobufItems = new WeakMap<object, Uint8Array>();

/** A shared list item's protobuf list-item message, encoded once per object. */
function cachedProtobufItem(item: KubeObject, apiVersion: string, kind: string): Uint8Array {
  let bytes = protobufItems.get(item);
  if (bytes === undefined) protobufItems.set(item, (bytes = encodeKubernetesProtobufListItem(apiVersion, kind, item as Record<string, unknown>)));
  return bytes;
}

/**
 * writeListJson for shared items: each item's JSON encoded once per object, the body concatenated from those bytes.
 * A typed list's item bytes are kept apart from an unstructured list's, should one object be listed through both.
 */
function writeSharedListJson(res: ServerResponse, list: { kind: string; apiVersion: string; metadata: unknown; items: KubeObject[] }, typed: boolean): void {
  const head = Buffer.from(`{"kind":${JSON.stringify(list.kind)},"apiVersion":${JSON.stringify(list.apiVersion)},"metadata":${JSON.stringify(list.metadata)},"items":[`);
  const parts: Buffer[] = new Array(list.items.length * 2 + 1);
  parts[0] = head;
  let n = 1;
  const cache = typed ? typedJsonItems : jsonItems;
  for (const item of list.items) {
    let bytes = cache.get(item);
    if (bytes === undefined) cache.set(item, (bytes = Buffer.from(itemJson(item, typed))));
    if (n > 1) parts[n++] = comma;
    parts[n++] = bytes;
  }
  parts[n++] = listTail;
  parts.length = n;
  writeRaw(res, 200, Buffer.concat(parts), 'application/json');
}
const comma = Buffer.from(',');
const listTail = Buffer.from(']}');

/** Encodes one watch event object in the negotiated form (Table rows carry column definitions only once). */
export function watchObjectEncoder(output: ObjectOutput, def: ResourceDefinition): (type: string, obj: KubeObject) => unknown {
  if (output.kind === 'partial') {
    return (type, obj) => (type === 'BOOKMARK' || type === 'ERROR' ? obj : partialOf(obj, output.version));
  }
  if (output.kind === 'table') {
    const conv = def.tableConvertor;
    let first = true;
    return (type, obj) => {
      if (type === 'ERROR') return obj;
      if (type === 'BOOKMARK') {
        return { kind: 'Table', apiVersion: `meta.k8s.io/${output.version}`, metadata: { resourceVersion: obj.metadata?.resourceVersion ?? '' }, columnDefinitions: [], rows: [] };
      }
      const table = buildTable([...conv.columns], [{ cells: conv.row(obj, Date.now()), object: obj }], { resourceVersion: obj.metadata?.resourceVersion ?? '' }, output.includeObject, {
        apiVersion: `meta.k8s.io/${output.version}`,
        noHeaders: !first,
        rowMetadata: conv.rowMetadata,
      });
      first = false;
      return table;
    };
  }
  return (_type, obj) => obj;
}

/**
 * The bytes of one watch event on the wire: a JSON line, or a length-prefixed protobuf WatchEvent frame. The event
 * objects of a resource's watch fan-out are shared by every watcher (the store decodes each storage event once), so
 * a frame is encoded once per object, event type and serialization and the same bytes go to every watcher.
 */
export function watchFrame(format: 'json' | 'protobuf', type: string, object: unknown): string | Buffer {
  const shareable = typeof object === 'object' && object !== null;
  const cache = format === 'json' ? jsonFrames : protobufFrames;
  if (shareable) {
    const hit = cache.get(object)?.[type];
    if (hit !== undefined) return hit;
  }
  const frame = format === 'json' ? `${JSON.stringify({ type, object })}\n` : encodeWatchEventFrame(type, encodeKubernetesProtobuf(object as Record<string, unknown>));
  if (shareable) {
    let byType = cache.get(object);
    if (!byType) cache.set(object, (byType = {}));
    byType[type] = frame;
  }
  return frame;
}
const jsonFrames = new WeakMap<object, Record<string, string | Buffer>>();
const protobufFrames = new WeakMap<object, Record<string, string | Buffer>>();
