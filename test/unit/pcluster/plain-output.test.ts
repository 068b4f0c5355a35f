import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { canonicalHexdump, hasPlainOutput, plainOutput } from '../../../src/pcluster/runtime/plain-output.js';

const env = { PATH: '/usr/bin:/bin', HOSTNAME: 'hello-1234', GREETING: 'hi there', EMPTY: '', SPACED: '  a  b ' };
const files: Record<string, string> = { '/etc/podinfo/podname': 'web-0', '/etc/config/motd': 'line 1\nline 2\n' };
const read = (p: string) => files[p];
const none = () => undefined;
const at = new Date(Date.UTC(2026, 10, 8, 9, 5, 7));
const sh = (script: string) => ['/bin/sh', '-c', script];

describe('plainOutput: what a plain command prints', () => {
  it('runs echo, date, hostname and printenv directly and in sh -c scripts', () => {
    assert.deepEqual(plainOutput(['echo', 'hello', 'world'], env), ['hello world']);
    // The CronJob tutorial's command; date pads the day with a space, as busybox's and Go's UnixDate do.
    assert.deepEqual(plainOutput(sh('date; echo Hello from the Kubernetes cluster'), env, none, at), ['Sun Nov  8 09:05:07 UTC 2026', 'Hello from the Kubernetes cluster']);
    // Upstream's "should print the output to logs" pod.
    assert.deepEqual(plainOutput(['sh', '-c', "echo 'Hello World' ; sleep 240"], env), ['Hello World']);
    assert.deepEqual(plainOutput(sh('hostname && printenv GREETING'), env), ['hello-1234', 'hi there']);
    assert.deepEqual(plainOutput(['bash', '-c', 'echo one\necho two'], env), ['one', 'two']);
  });

  it('echo -n continues the line; echo -e with escapes is not simulated', () => {
    assert.deepEqual(plainOutput(sh('echo -n a; echo b'), env), ['ab']);
    assert.deepEqual(plainOutput(['echo', '-n', 'x'], env), ['x']);
    assert.equal(plainOutput(sh("echo -e 'a\\nb'"), env), undefined);
    assert.deepEqual(plainOutput(sh('echo -e plain'), env), ['plain']);
  });

  it('cat prints the files of the volumes, joined as they are (upstream\'s projected volume spec)', () => {
    assert.deepEqual(plainOutput(sh('cat /etc/podinfo/podname && cat /etc/config/motd'), env, read), ['web-0line 1', 'line 2']);
    assert.equal(plainOutput(sh('cat /nowhere'), env, read), undefined);
    assert.equal(plainOutput(['cat', '-n', '/etc/config/motd'], env, read), undefined);
  });

  it('hexdump -C prints a file as hexdump does', () => {
    assert.equal(canonicalHexdump(Buffer.from([0xde, 0xca, 0xfe, 0xba, 0xd0, 0xfe, 0xff])), `00000000  de ca fe ba d0 fe ff${' '.repeat(30)}|.......|\n00000007\n`);
    assert.equal(canonicalHexdump(Buffer.from('Hello World\n')), '00000000  48 65 6c 6c 6f 20 57 6f  72 6c 64 0a              |Hello World.|\n0000000c\n');
    assert.equal(canonicalHexdump(Buffer.alloc(48)), `00000000  ${'00 '.repeat(8)} ${'00 '.repeat(8)} |${'.'.repeat(16)}|\n*\n00000030\n`);
    assert.deepEqual(plainOutput(['hexdump', '-C', '/etc/config/motd'], env, read), ['00000000  6c 69 6e 65 20 31 0a 6c  69 6e 65 20 32 0a        |line 1.line 2.|', '0000000e']);
  });

  it('prints the environment for env and printenv', () => {
    assert.deepEqual(plainOutput(['env'], { A: '1', B: 'x\ny' }), ['A=1', 'B=x', 'y']);
    assert.deepEqual(plainOutput(sh('env'), { A: '1' }), ['A=1']);
  });

  it('expands quotes and variables as a shell does', () => {
    assert.deepEqual(plainOutput(sh('echo "$GREETING, ${HOSTNAME}!" \'$GREETING\' a\\ b'), env), ['hi there, hello-1234! $GREETING a b']);
    assert.deepEqual(plainOutput(sh('echo $GREETING$EMPTY $UNSET end'), env), ['hi there end']);
    assert.deepEqual(plainOutput(sh('echo [$SPACED]x'), env), undefined, 'a glob character');
    assert.deepEqual(plainOutput(sh('echo <$SPACED>'), env), undefined);
    assert.deepEqual(plainOutput(sh('echo x$SPACED.y'), env), ['x a b .y'], 'leading and trailing blanks split off');
    assert.deepEqual(plainOutput(sh('echo a \\\n  b'), env), ['a b'], 'a backslash-newline continues the line');
    assert.deepEqual(plainOutput(sh('echo "a\\\nb"'), env), ['ab']);
    assert.equal(plainOutput(sh('echo $PWD'), env), undefined, 'a variable the shell sets itself');
  });

  it('takes NAME=value before a command as that command\'s environment (upstream\'s variable expansion specs)', () => {
    // The kubelet expanded $(TEST_VAR) before the shell ran: the shell's own assignment does not change the argument.
    assert.deepEqual(plainOutput(['sh', '-c', 'TEST_VAR=wrong echo "test-value"'], env), ['test-value']);
    assert.deepEqual(plainOutput(sh('A=1 B=2 printenv A B'), env), ['1', '2']);
    assert.equal(plainOutput(sh('A=1; echo $A'), env), undefined, 'a shell variable set for later words is not followed');
    assert.equal(plainOutput(sh('"A=1" echo x'), env), undefined, 'a quoted word is a command, not an assignment');
    assert.equal(plainOutput(['A=1', 'env'], env), undefined, 'without a shell there is no assignment');
  });

  it('follows && and || by exit status (a newline after them continues the list), and stops at exit', () => {
    assert.deepEqual(plainOutput(sh('false && echo no || echo yes'), env), ['yes']);
    assert.deepEqual(plainOutput(sh('false &&\n echo no'), env), []);
    assert.deepEqual(plainOutput(sh('true && echo a; exit 3; echo never'), env), ['a']);
    assert.deepEqual(plainOutput(sh('printenv UNSET || echo missing'), env), ['missing']);
  });

  it('does not print at start what would come only after a sleep, nor a date in another time zone', () => {
    assert.equal(plainOutput(sh('sleep 30; echo done'), env), undefined);
    assert.deepEqual(plainOutput(sh('echo start; sleep 0; echo now'), env), ['start', 'now']);
    assert.equal(plainOutput(sh('date'), { TZ: 'Europe/Paris' }), undefined);
  });

  it('knows nothing of anything else', () => {
    for (const words of [
      ['nginx', '-g', 'daemon off;'],
      [],
      sh('echo a | tr a b'),
      sh('echo a > /tmp/x'),
      sh('echo $(date)'),
      sh('for i in 1 2; do echo $i; done'),
      sh('! echo x'),
      sh('echo a & sleep 1'),
      sh('echo "unterminated'),
      sh('echo $1'),
      ['date', '+%s'],
    ]) {
      assert.equal(plainOutput(words, env), undefined, JSON.stringify(words));
    }
    assert.deepEqual(plainOutput(sh('echo done'), env), ['done'], 'a keyword only counts as a command');
    assert.doesNotThrow(() => plainOutput(sh(`echo '${'\n'.repeat(200_000)}'`), env), 'a huge output is cut, not a crash');
    assert.equal(plainOutput(sh(`echo '${'\n'.repeat(200_000)}'`), env)!.length, 1000);
  });

  it('hasPlainOutput: only commands that print something known', () => {
    assert.equal(hasPlainOutput(sh('echo x; sleep 3600')), true);
    assert.equal(hasPlainOutput(sh('env')), true);
    assert.equal(hasPlainOutput(sh('date; echo hi')), true);
    assert.equal(hasPlainOutput(['cat', '/etc/podinfo/podname']), true, 'whatever the volumes turn out to hold');
    assert.equal(hasPlainOutput(['printenv', 'MY_VAR']), true, 'whatever the environment turns out to hold');
    assert.equal(hasPlainOutput(['sleep', '3600']), false, 'no output: the simulator keeps its own lines');
    assert.equal(hasPlainOutput(['nginx']), false);
  });
});
