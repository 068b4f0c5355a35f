/**
 * The widgets example as a program: `node dist/examples/embedded-widgets/main.js [--root-dir DIR] [--port N]`.
 * Serves until SIGINT or SIGTERM, then stops the controllers and the server and exits 0.
 */
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { startWidgetsExample } from './widgets.js';

const { values } = parseArgs({
  options: {
    'root-dir': { type: 'string', default: '.widgets-example' },
    port: { type: 'string', default: '0' },
  },
});

const example = await startWidgetsExample({ rootDir: resolve(values['root-dir']), port: Number(values.port) });
console.log(`widgets example serving at ${example.server.url}`);
console.log(`export KUBECONFIG=${example.server.kubeconfigPath}`);

let stopping = false;
const shutdown = (signal: string) => {
  if (stopping) return;
  stopping = true;
  console.log(`${signal}: stopping`);
  example.stop().then(
    () => {
      console.log('stopped');
      process.exit(0);
    },
    (err: unknown) => {
      console.error('stopping failed:', err);
      process.exit(1);
    },
  );
};
process.on('SIGINT', () => shutdown('SIGINT'));
process.on('SIGTERM', () => shutdown('SIGTERM'));
