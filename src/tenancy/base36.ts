/**
 * kcp's padded base-36 spelling of bytes (kcp-dev/apimachinery pkg/util/crypto, Base36 BytesPad): the bytes read as
 * a big-endian unsigned number in base 36 (0-9a-z), preceded by one `0` per leading zero byte (all zero bytes: as many
 * `0`s). Names homes (home-cluster.ts) and hashes shard names (shard-scheduling.ts).
 */
export function base36Padded(bytes: Uint8Array): string {
  let zeros = 0;
  while (zeros < bytes.length && bytes[zeros] === 0) zeros++;
  if (zeros === bytes.length) return '0'.repeat(zeros);
  return '0'.repeat(zeros) + BigInt(`0x${Buffer.from(bytes).toString('hex')}`).toString(36);
}
