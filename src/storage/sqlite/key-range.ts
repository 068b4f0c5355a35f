/**
 * Prefix ranges for SQLite's BINARY collation. SQLite compares TEXT by its UTF-8 bytes, and UTF-8 byte
 * order equals Unicode code point order. So every key that starts with a prefix sorts below the prefix
 * whose last code point is incremented by one. Appending '\uffff' would not work: keys continuing with
 * a code point above U+FFFF (four UTF-8 bytes, F0..F4) sort after it.
 */

const MAX_CODE_POINT = 0x10ffff;
const FIRST_SURROGATE = 0xd800;
const LAST_SURROGATE = 0xdfff;

/**
 * The smallest string greater than every string that starts with prefix (in code point order), or null
 * when no such bound exists: the empty prefix, or one made only of U+10FFFF, covers the whole key space
 * above it. Surrogate code points are skipped because they cannot be encoded in UTF-8.
 */
export function prefixUpperBound(prefix: string): string | null {
  const codePoints = Array.from(prefix);
  while (codePoints.length > 0) {
    const last = codePoints.pop()!.codePointAt(0)!;
    if (last < MAX_CODE_POINT) {
      let next = last + 1;
      if (next >= FIRST_SURROGATE && next <= LAST_SURROGATE) next = LAST_SURROGATE + 1;
      return codePoints.join('') + String.fromCodePoint(next);
    }
  }
  return null;
}
