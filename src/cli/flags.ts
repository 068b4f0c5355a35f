/** Flag parsers shared by the atrium commands (commander turns an InvalidArgumentError into its usage error). */
import { InvalidArgumentError } from 'commander';

/** A TCP port, 0 to 65535 (0 picks a free one). */
export function parsePort(v: string): number {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 0 || n > 65535) throw new InvalidArgumentError('must be a port number between 0 and 65535');
  return n;
}

/** A flag parser from a plain parse function: whatever it throws becomes commander's InvalidArgumentError. */
export function flagParser<T>(parse: (v: string) => T): (v: string) => T {
  return (v) => {
    try {
      return parse(v);
    } catch (err) {
      throw new InvalidArgumentError((err as Error).message);
    }
  };
}
