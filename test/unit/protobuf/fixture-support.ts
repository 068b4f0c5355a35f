/** Shared helpers for the protobuf tests: locating and loading the Go-generated fixtures. */
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** test/unit/protobuf/testdata in the source tree (tests run from dist/, fixtures are not copied). */
export const TESTDATA_DIR = fileURLToPath(new URL('../../../../test/unit/protobuf/testdata/', import.meta.url));

export interface Fixture {
  name: string;
  protobuf: Uint8Array;
  json: Record<string, unknown>;
}

/** Every `<name>.pb` with its `<name>.json`, sorted by name. */
export function loadFixtures(): Fixture[] {
  return readdirSync(TESTDATA_DIR)
    .filter((file) => file.endsWith('.pb'))
    .sort()
    .map((file) => {
      const name = file.slice(0, -3);
      return {
        name,
        protobuf: new Uint8Array(readFileSync(TESTDATA_DIR + file)),
        json: JSON.parse(readFileSync(`${TESTDATA_DIR}${name}.json`, 'utf8')) as Record<string, unknown>,
      };
    });
}

/**
 * Removes what Go's JSON prints but a decoder cannot (and need not) reproduce: `null` members (zero
 * metav1.Time, nil slices and maps without omitempty). Everything else must match exactly.
 */
export function dropNulls(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(dropNulls);
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [key, member] of Object.entries(value)) if (member !== null) out[key] = dropNulls(member);
    return out;
  }
  return value;
}

export function hex(text: string): Uint8Array {
  return Uint8Array.from(Buffer.from(text.replace(/\s+/g, ''), 'hex'));
}
