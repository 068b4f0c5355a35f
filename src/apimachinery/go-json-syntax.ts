/**
 * encoding/json's syntax errors, worded as Go words them (`invalid character '}' looking for beginning of value`,
 * `unexpected end of JSON input`), for request bodies JSON.parse refused: kube-apiserver puts Go's text in its 400s,
 * and V8's (`Unexpected token '}', "{"a":}" is not valid JSON`) must not leak into them. Go's scanner (checkValid)
 * runs over the whole input before decoding, so the first error in the text is the one reported.
 */

/** encoding/json's quoteChar. */
function goQuoteChar(c: string): string {
  if (c === "'") return `'\\''`;
  if (c === '"') return `'"'`;
  const q = JSON.stringify(c);
  return `'${q.slice(1, -1)}'`;
}

/** Go's message for the first syntax error in `text`, or undefined when it is valid JSON. */
export function goJSONSyntaxError(text: string): string | undefined {
  let i = 0;
  class Bad extends Error {}
  const fail = (context: string): never => {
    throw new Bad(`invalid character ${goQuoteChar(text[i]!)} ${context}`);
  };
  const eof = (): never => {
    throw new Bad('unexpected end of JSON input');
  };
  const space = () => {
    while (i < text.length && ' \t\r\n'.includes(text[i]!)) i++;
  };
  const digit = (c: string | undefined) => c !== undefined && c >= '0' && c <= '9';
  const literal = (word: string) => {
    for (let k = 1; k < word.length; k++) {
      i++;
      if (i >= text.length) eof();
      if (text[i] !== word[k]) fail(`in literal ${word} (expecting ${goQuoteChar(word[k]!)})`);
    }
    i++;
  };
  const string = () => {
    i++;
    for (;;) {
      if (i >= text.length) eof();
      const c = text[i]!;
      if (c === '"') return void i++;
      if (c < ' ') fail('in string literal');
      if (c === '\\') {
        i++;
        if (i >= text.length) eof();
        if (text[i] === 'u') {
          for (let k = 0; k < 4; k++) {
            i++;
            if (i >= text.length) eof();
            if (!/[0-9a-fA-F]/.test(text[i]!)) fail('in \\u hexadecimal character escape');
          }
        } else if (!'"\\/bfnrt'.includes(text[i]!)) fail('in string escape code');
      }
      i++;
    }
  };
  const number = () => {
    if (text[i] === '-') {
      i++;
      if (i >= text.length) eof();
      if (!digit(text[i])) fail('in numeric literal');
    }
    if (text[i] === '0') i++;
    else while (digit(text[i])) i++;
    if (text[i] === '.') {
      i++;
      if (i >= text.length) eof();
      if (!digit(text[i])) fail('after decimal point in numeric literal');
      while (digit(text[i])) i++;
    }
    if (text[i] === 'e' || text[i] === 'E') {
      i++;
      if (text[i] === '+' || text[i] === '-') i++;
      if (i >= text.length) eof();
      if (!digit(text[i])) fail('in exponent of numeric literal');
      while (digit(text[i])) i++;
    }
  };
  const value = (): void => {
    space();
    if (i >= text.length) eof();
    const c = text[i]!;
    if (c === '{') {
      i++;
      space();
      if (i >= text.length) eof();
      if (text[i] === '}') return void i++;
      for (;;) {
        space();
        if (i >= text.length) eof();
        if (text[i] !== '"') fail('looking for beginning of object key string');
        string();
        space();
        if (i >= text.length) eof();
        if (text[i] !== ':') fail('after object key');
        i++;
        value();
        space();
        if (i >= text.length) eof();
        if (text[i] === '}') return void i++;
        if (text[i] !== ',') fail('after object key:value pair');
        i++;
      }
    }
    if (c === '[') {
      i++;
      space();
      if (i >= text.length) eof();
      if (text[i] === ']') return void i++;
      for (;;) {
        value();
        space();
        if (i >= text.length) eof();
        if (text[i] === ']') return void i++;
        if (text[i] !== ',') fail('after array element');
        i++;
      }
    }
    if (c === '"') return string();
    if (c === '-' || digit(c)) return number();
    if (c === 't') return literal('true');
    if (c === 'f') return literal('false');
    if (c === 'n') return literal('null');
    fail('looking for beginning of value');
  };
  try {
    value();
    space();
    if (i < text.length) fail('after top-level value');
    return undefined;
  } catch (err) {
    if (err instanceof Bad) return err.message;
    throw err;
  }
}

