import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { hasPlainOutput, plainOutput } from '../../../src/pcluster/runtime/plain-output.js';

const env = { PATH: '/usr/bin:/bin', HOSTNAME: 'hello-1234', GREETING: 'hi there', EMPTY: '' };
const at = new Date(Date.UTC(2026, 10, 28, 9, 5, 7));
const sh = (script: string) => ['/bin/sh', '-c', script];

describe('plainOutput: what a plain command prints', () => {
  it('runs echo, date, hostname and printenv directly and in sh -c scripts', () => {
    assert.deepEqual(plainOutput(['echo', 'hello', 'world'], env), ['hello world']);
    assert.deepEqual(plainOutput(['/bin/echo', '-n', 'x'], env), ['x']);
    // The CronJob tutorial's command.
    assert.deepEqual(plainOutput(sh('date; echo Hello from the Kubernetes cluster'), env, at), ['Sat Nov 28 09:05:07 UTC 2026', 'Hello from the Kubernetes cluster']);
    // Upstream's "should print the output to logs" pod.
    assert.deepEqual(plainOutput(['sh', '-c', "echo 'Hello World' ; sleep 240"], env), ['Hello World']);
    assert.deepEqual(plainOutput(sh('hostname && printenv GREETING'), env), ['hello-1234', 'hi there']);
    assert.deepEqual(plainOutput(['bash', '-c', 'echo one\necho two'], env), ['one', 'two']);
  });

  it('prints the environment for env and printenv', () => {
    assert.deepEqual(plainOutput(['env'], env), ['PATH=/usr/bin:/bin', 'HOSTNAME=hello-1234', 'GREETING=hi there', 'EMPTY=']);
    assert.deepEqual(plainOutput(sh('env'), { A: '1' }), ['A=1']);
  });

  it('expands quotes and variables as a shell does', () => {
    assert.deepEqual(plainOutput(sh('echo "$GREETING, ${HOSTNAME}!" \'$GREETING\' a\\ b'), env), ['hi there, hello-1234! $GREETING a b']);
    assert.deepEqual(plainOutput(sh('echo $GREETING$EMPTY $UNSET end'), env), ['hi there end']);
  });

  it('takes NAME=value before a command as that command\'s environment (upstream\'s variable expansion specs)', () => {
    // The kubelet expanded $(TEST_VAR) before the shell ran: the shell's own assignment does not change the argument.
    assert.deepEqual(plainOutput(['sh', '-c', 'TEST_VAR=wrong echo "test-value"'], env), ['test-value']);
    assert.deepEqual(plainOutput(sh('A=1 B=2 printenv A B'), env), ['1', '2']);
    assert.equal(plainOutput(sh('A=1; echo $A'), env), undefined, 'a shell variable set for later words is not followed');
  });

  it('follows && and || by exit status, and stops at exit', () => {
    assert.deepEqual(plainOutput(sh('false && echo no || echo yes'), env), ['yes']);
    assert.deepEqual(plainOutput(sh('true && echo a; exit 3; echo never'), env), ['a']);
    assert.deepEqual(plainOutput(sh('printenv UNSET || echo missing'), env), ['missing']);
  });

  it('knows nothing of anything else', () => {
    for (const words of [
      ['nginx', '-g', 'daemon off;'],
      [],
      sh('echo a | tr a b'),
      sh('echo a > /tmp/x'),
      sh('echo $(date)'),
      sh('for i in 1 2; do echo $i; done'),
      sh('cat /etc/config/key'),
      sh('echo a & sleep 1'),
      sh('echo "unterminated'),
      sh('echo $1'),
      ['date', '+%s'],
    ]) {
      assert.equal(plainOutput(words, env), undefined, JSON.stringify(words));
    }
    assert.deepEqual(plainOutput(sh('echo done'), env), ['done'], 'a keyword only counts as a command');
  });

  it('hasPlainOutput: only commands that print something known', () => {
    assert.equal(hasPlainOutput(sh('echo x; sleep 3600')), true);
    assert.equal(hasPlainOutput(sh('env')), true);
    assert.equal(hasPlainOutput(['printenv', 'MY_VAR']), true, 'whatever the environment turns out to hold');
    assert.equal(hasPlainOutput(['sleep', '3600']), false, 'no output: the simulator keeps its own lines');
    assert.equal(hasPlainOutput(['nginx']), false);
  });
});
