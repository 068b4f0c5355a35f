/**
 * metadata.generateName expansion, as k8s.io/apiserver/pkg/storage/names does it: the prefix,
 * truncated so the result fits a 63-character DNS label, plus five random characters.
 */
import { randomInt } from 'node:crypto';

/** The longest name the generator aims for (a DNS-1123 label). */
export const MAX_NAME_LENGTH = 63;
/** Length of the random suffix. */
export const RANDOM_LENGTH = 5;
/** Prefixes longer than this are cut: 63 - 5 = 58. */
export const MAX_GENERATED_NAME_LENGTH = MAX_NAME_LENGTH - RANDOM_LENGTH;
/** util/rand's alphabet: no vowels (no accidental words) and no look-alikes such as 0/o, 1/l, 3/e. */
export const RANDOM_ALPHABET = 'bcdfghjklmnpqrstvwxz2456789';

/** `n` characters drawn uniformly from RANDOM_ALPHABET with a cryptographic source. */
export function randomSuffix(n: number = RANDOM_LENGTH): string {
  let s = '';
  for (let i = 0; i < n; i++) s += RANDOM_ALPHABET[randomInt(RANDOM_ALPHABET.length)];
  return s;
}

/**
 * SimpleNameGenerator.GenerateName: `base` cut to 58 characters, then 5 random characters. The base
 * is not validated here; ObjectMeta validation checks generateName separately. Callers retry with a
 * fresh name when the result already exists.
 */
export function generateName(base: string, suffix: (n: number) => string = randomSuffix): string {
  const prefix = base.length > MAX_GENERATED_NAME_LENGTH ? base.slice(0, MAX_GENERATED_NAME_LENGTH) : base;
  return prefix + suffix(RANDOM_LENGTH);
}
