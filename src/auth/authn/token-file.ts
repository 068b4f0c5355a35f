/**
 * Static bearer tokens from a file given at start (`--token-auth-file`), kube's CSV format:
 * `token,user,uid,"group1,group2"` — one user a line, the groups column optional, blank lines ignored.
 */
import { readFileSync } from 'node:fs';
import type { UserInfo } from '../../apimachinery/user.js';

/** Splits one CSV record (RFC 4180 quoting; spaces before a field are dropped, as Go's TrimLeadingSpace does). */
export function parseCsvLine(line: string): string[] {
  const fields: string[] = [];
  let i = 0;
  for (;;) {
    while (line[i] === ' ' || line[i] === '\t') i++;
    let field = '';
    if (line[i] === '"') {
      i++;
      for (;;) {
        if (i >= line.length) throw new Error('unterminated quoted field');
        if (line[i] === '"') {
          if (line[i + 1] === '"') {
            field += '"';
            i += 2;
            continue;
          }
          i++;
          break;
        }
        field += line[i++];
      }
      if (i < line.length && line[i] !== ',') throw new Error(`extraneous text after quoted field`);
    } else {
      const comma = line.indexOf(',', i);
      field = comma < 0 ? line.slice(i) : line.slice(i, comma);
      i = comma < 0 ? line.length : comma;
    }
    fields.push(field);
    if (i >= line.length) return fields;
    i++; // the comma
  }
}

/**
 * Parses a token file's text into token → user. Throws with the line number on a malformed line
 * (fewer than 3 columns, an empty token or user name). A repeated token keeps the later line, as upstream.
 */
export function parseTokenFile(text: string, source = 'token file'): Map<string, UserInfo> {
  const out = new Map<string, UserInfo>();
  const lines = text.split(/\r?\n/);
  lines.forEach((raw, idx) => {
    if (raw.trim() === '') return;
    let rec: string[];
    try {
      rec = parseCsvLine(raw);
    } catch (err) {
      throw new Error(`${source}: line ${idx + 1}: ${(err as Error).message}`);
    }
    if (rec.length < 3) throw new Error(`${source}: line ${idx + 1}: must have at least 3 columns (token, user name, user uid), found ${rec.length}`);
    const [token, username, uid] = rec as [string, string, string];
    if (!token) throw new Error(`${source}: line ${idx + 1}: empty token`);
    if (!username) throw new Error(`${source}: line ${idx + 1}: empty user name`);
    const groups = rec.length > 3 && rec[3]! !== '' ? rec[3]!.split(',').map((g) => g.trim()).filter((g) => g !== '') : [];
    out.set(token, { username, uid, groups });
  });
  return out;
}

/** Reads and parses a token file from disk. */
export function loadTokenFile(path: string): Map<string, UserInfo> {
  return parseTokenFile(readFileSync(path, 'utf8'), path);
}
