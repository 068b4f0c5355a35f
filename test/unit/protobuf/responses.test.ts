/** Protobuf responses: the watch frame layout, and one encoding per event object shared by every watcher. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { watchFrame } from '../../../src/apiserver/handlers/render.js';
import { decodeKubernetesProtobuf } from '../../../src/apimachinery/protobuf/decode.js';
import { WireReader } from '../../../src/apimachinery/protobuf/wire-reader.js';

const cm = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a', namespace: 'ns', resourceVersion: '7' }, data: { k: 'v' } };

describe('protobuf watch frames', () => {
  it('a frame is a big-endian length and a WatchEvent{type, object{raw}} whose raw is a full protobuf body', () => {
    const frame = watchFrame('protobuf', 'MODIFIED', cm) as Buffer;
    assert.equal(frame.readUInt32BE(0), frame.length - 4);
    const r = new WireReader(frame, 4, frame.length, 4);
    let type = '';
    let raw: Uint8Array | undefined;
    while (!r.done()) {
      const { field, wireType } = r.tag();
      if (field === 1) type = r.string();
      else if (field === 2) {
        const ext = r.subReader();
        while (!ext.done()) {
          const t = ext.tag();
          if (t.field === 1) raw = ext.bytes();
          else ext.skip(t.wireType);
        }
      } else r.skip(wireType);
    }
    assert.equal(type, 'MODIFIED');
    assert.deepEqual(decodeKubernetesProtobuf(raw!).object, cm);
  });

  it('encodes an event object once per type and serialization: every watcher gets the same bytes', () => {
    const obj = structuredClone(cm);
    assert.equal(watchFrame('protobuf', 'ADDED', obj), watchFrame('protobuf', 'ADDED', obj));
    assert.equal(watchFrame('json', 'ADDED', obj), watchFrame('json', 'ADDED', obj));
    assert.notEqual(watchFrame('protobuf', 'ADDED', obj), watchFrame('protobuf', 'DELETED', obj));
    assert.equal(watchFrame('json', 'DELETED', obj), `${JSON.stringify({ type: 'DELETED', object: obj })}\n`);
  });
});
