/**
 * atrium embedded in a Node program: one process serves the Kubernetes API on SQLite with its own resource
 * (widgets.example.atrium.dev/v1 Widget), its own admission plugin and its own controller.
 *
 * Everything comes from the package's front door. In this repository that is src/index.ts; a program that installed
 * the package writes `from 'atrium'` instead.
 */
import {
  clusterOf,
  commit,
  Controller,
  deepCopy,
  defineBuiltin,
  errors,
  field,
  keyOf,
  printerForColumns,
  runControllers,
  startServer,
  statusOnly,
  type AdmissionPlugin,
  type ControllerInstaller,
  type FieldError,
  type GroupVersionResource,
  type KubeObject,
  type RunningServer,
  type ServerPlugin,
} from '../../src/index.js'; // the front door: `from 'atrium'` outside this repository

export const widgetsGVR: GroupVersionResource = { group: 'example.atrium.dev', version: 'v1', resource: 'widgets' };

export interface Widget extends KubeObject {
  spec?: { size?: number };
  status?: { phase?: string; observedSize?: number };
}

/** spec.size must be an integer of at least 1: anything else is one field error, answered with a 422. */
export function validateWidget(obj: Widget): FieldError[] {
  const size = obj.spec?.size;
  if (size === undefined || size === null) return [field.required('spec.size', 'the widget needs a size')];
  if (typeof size !== 'number' || !Number.isInteger(size)) return [field.invalid('spec.size', size, 'must be an integer')];
  if (size < 1) return [field.invalid('spec.size', size, 'must be greater than or equal to 1')];
  return [];
}

/** The Widget resource: namespaced, validated, with a status subresource, printer columns and an OpenAPI schema. */
export const widgets = defineBuiltin({
  group: widgetsGVR.group,
  version: widgetsGVR.version,
  resource: widgetsGVR.resource,
  kind: 'Widget',
  namespaced: true,
  shortNames: ['wg'],
  definitionName: 'dev.atrium.example.v1.Widget',
  strategy: {
    tracksGeneration: true,
    // Status is written through /status only: a create starts without one, an update keeps the stored one.
    prepareForCreate: (obj) => void delete obj.status,
    prepareForUpdate(obj, old) {
      if (old.status === undefined) delete obj.status;
      else obj.status = old.status;
    },
    validate: (obj) => validateWidget(obj),
    validateUpdate: (obj) => validateWidget(obj),
  },
  subresources: [{ name: 'status', kind: 'Widget', verbs: ['get', 'patch', 'update'], strategy: statusOnly }],
  printer: printerForColumns([
    { name: 'Size', type: 'integer', jsonPath: '.spec.size', description: 'How big the widget is.' },
    { name: 'Phase', type: 'string', jsonPath: '.status.phase', description: 'Ready once the controller has seen the widget.' },
    { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' },
  ]),
  schema: {
    description: 'A widget: an example resource served by a program that embeds atrium.',
    spec: { type: 'object', required: ['size'], properties: { size: { type: 'integer', minimum: 1, description: 'How big the widget is (at least 1).' } } },
    status: {
      type: 'object',
      properties: {
        phase: { type: 'string', description: 'Ready once the controller has reconciled the widget.' },
        observedSize: { type: 'integer', description: 'The spec.size the controller last saw.' },
      },
    },
  },
});

/** Admission: no widget may be called `forbidden`. */
export const widgetNamePolicy: AdmissionPlugin = {
  name: 'WidgetNamePolicy',
  admit(attrs) {
    if (attrs.def.group !== widgetsGVR.group || attrs.def.resource !== widgetsGVR.resource) return;
    if (attrs.operation === 'CREATE' && attrs.name === 'forbidden') {
      throw errors.forbidden(widgetsGVR, attrs.name, 'the name "forbidden" is reserved: choose another name for your widget');
    }
  },
};

/** The controller: every Widget gets status.phase Ready and status.observedSize = spec.size. */
export const widgetController: ControllerInstaller = {
  name: 'widgets',
  install(ctx) {
    const informer = ctx.informers.informerFor<Widget>(widgetsGVR, { cluster: '*' });
    const controller = new Controller({
      name: 'widgets',
      async reconcile(key) {
        const current = informer.lister.get(key);
        if (!current) return; // deleted meanwhile
        const next = deepCopy(current);
        next.status = { ...next.status, phase: 'Ready', observedSize: current.spec?.size };
        await commit(ctx.client, widgetsGVR, current, next, { cluster: clusterOf(current), namespace: current.metadata?.namespace });
      },
    });
    informer.addEventHandler({ add: (w) => controller.enqueue(keyOf(w)), update: (_old, w) => controller.enqueue(keyOf(w)) });
    return { name: 'widgets', start: () => controller.start(), stop: () => controller.stop() };
  },
};

/** The plugin that brings all three to the server. */
export const widgetsPlugin: ServerPlugin = {
  name: 'widgets',
  resources: [widgets],
  install: () => ({ admission: [widgetNamePolicy] }),
  controllers: (server) => runControllers({ server, userAgent: 'widgets-example/v1', installers: [widgetController] }),
};

export interface WidgetsExampleOptions {
  /** Where the database, the certificates and admin.kubeconfig go. */
  rootDir: string;
  /** HTTPS port; 0 (the default) picks a free one. */
  port?: number;
  bindAddress?: string;
}

export interface WidgetsExample {
  server: RunningServer;
  stop(): Promise<void>;
}

/** Starts the server with the widgets plugin on SQLite in `rootDir`. */
export async function startWidgetsExample(opts: WidgetsExampleOptions): Promise<WidgetsExample> {
  const server = await startServer({
    rootDir: opts.rootDir,
    bindAddress: opts.bindAddress ?? '127.0.0.1',
    securePort: opts.port ?? 0,
    plugins: [widgetsPlugin],
  });
  return { server, stop: () => server.stop() };
}
