/**
 * PEM decoding as Go's encoding/pem Decode does it, which is what decides whether upstream accepts a CSR's request
 * and certificate: the first well-formed block anywhere in the data (text before it is skipped, a malformed
 * `-----BEGIN` is passed over and the search goes on), optional `Key: value` headers, base64 that may span lines
 * (spaces, tabs, CR and LF ignored, padding required), and an END line of the same type with nothing after it but
 * whitespace.
 */

export interface PemBlock {
  type: string;
  headers: Record<string, string>;
  bytes: Buffer;
}

const PEM_START = '\n-----BEGIN ';
const PEM_END = '\n-----END ';
const PEM_END_OF_LINE = '-----';
/** base64.StdEncoding: the standard alphabet, padded. */
const STD_BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** getLine: the line up to LF (a CR before it dropped, trailing spaces and tabs trimmed) and what follows. */
function getLine(data: string): [line: string, rest: string] {
  let i = data.indexOf('\n');
  let j: number;
  if (i < 0) {
    i = data.length;
    j = i;
  } else {
    j = i + 1;
    if (i > 0 && data[i - 1] === '\r') i--;
  }
  // Trimmed by hand: a regular expression anchored at the end backtracks quadratically over a long run of spaces.
  let k = i;
  while (k > 0 && (data[k - 1] === ' ' || data[k - 1] === '\t')) k--;
  return [data.slice(0, k), data.slice(j)];
}

/**
 * The first PEM block in `data` and the data after it, or undefined when there is none (pem.Decode returning nil).
 * Works on the bytes as latin1 text, so every byte stands for itself.
 */
export function decodePem(data: Buffer | string): { block: PemBlock; rest: string } | undefined {
  let rest = typeof data === 'string' ? data : data.toString('latin1');
  for (;;) {
    if (rest.startsWith(PEM_START.slice(1))) rest = rest.slice(PEM_START.length - 1);
    else {
      const at = rest.indexOf(PEM_START);
      if (at < 0) return undefined;
      rest = rest.slice(at + PEM_START.length);
    }
    let typeLine: string;
    [typeLine, rest] = getLine(rest);
    if (!typeLine.endsWith(PEM_END_OF_LINE)) continue;
    const type = typeLine.slice(0, typeLine.length - PEM_END_OF_LINE.length);
    const headers: Record<string, string> = {};
    let headerCount = 0;
    for (;;) {
      // A block that ends while reading headers ends the search (Decode returns nil, data).
      if (rest.length === 0) return undefined;
      const [line, next] = getLine(rest);
      const colon = line.indexOf(':');
      if (colon < 0) break;
      headers[line.slice(0, colon).trim()] = line.slice(colon + 1).trim();
      headerCount++;
      rest = next;
    }
    let endIndex: number;
    let endTrailerIndex: number;
    // Without headers the END line may follow at once, without a newline before it.
    if (headerCount === 0 && rest.startsWith(PEM_END.slice(1))) {
      endIndex = 0;
      endTrailerIndex = PEM_END.length - 1;
    } else {
      endIndex = rest.indexOf(PEM_END);
      endTrailerIndex = endIndex + PEM_END.length;
    }
    if (endIndex < 0) continue;
    const trailerLength = type.length + PEM_END_OF_LINE.length;
    const endTrailer = rest.slice(endTrailerIndex, endTrailerIndex + trailerLength);
    if (endTrailer.length < trailerLength || !endTrailer.startsWith(type) || !endTrailer.endsWith(PEM_END_OF_LINE)) continue;
    if (getLine(rest.slice(endTrailerIndex + trailerLength))[0].length !== 0) continue;
    const base64 = rest.slice(0, endIndex).replace(/[ \t\r\n]/g, '');
    if (!STD_BASE64.test(base64)) continue;
    const bytes = Buffer.from(base64, 'base64');
    // As Go, the -1: the END marker may have been matched without its leading newline.
    rest = getLine(rest.slice(endIndex + PEM_END.length - 1))[1];
    return { block: { type, headers, bytes }, rest };
  }
}
