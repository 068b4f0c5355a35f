/**
 * Key ranges in etcd's byte space. etcd orders keys by their bytes; atrium's keys are UTF-8 text, whose
 * byte order equals code point order, so "key order" means the same thing as for the SQLite backend.
 */

/**
 * The exclusive end of the range of keys starting with prefix: the prefix with its last byte that is
 * not 0xff incremented (and the bytes after it dropped). An empty prefix, or one made only of 0xff
 * bytes, has no end: `\0` is etcd's "to the end of the keyspace".
 */
export function prefixRangeEnd(prefix: Buffer): Buffer {
  for (let i = prefix.length - 1; i >= 0; i--) {
    if (prefix[i]! < 0xff) {
      const end = Buffer.from(prefix.subarray(0, i + 1));
      end[i] = end[i]! + 1;
      return end;
    }
  }
  return Buffer.from([0]);
}

/** The smallest key strictly greater than key: key followed by one zero byte. */
export function keyAfter(key: string): Buffer {
  return Buffer.concat([Buffer.from(key, 'utf8'), Buffer.from([0])]);
}
