/**
 * The pure parts of the proxy subresources: how `[scheme:]name[:port]` is split (utilnet.SplitSchemeNamePort), the
 * backend path built from the path below `proxy` (net.JoinPreservingTrailingSlash, escaped as Go's URL.EscapedPath),
 * and what the syncer tunnel lets through for them (never a path the cluster would resolve elsewhere).
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { backendPath, splitSchemeNamePort } from '../../../src/apiserver/streaming/http-proxy.js';
import { isTunnelledRequest } from '../../../src/multicluster/api/tunnel.js';

describe('proxy subresource paths', () => {
  it('splits names as upstream', () => {
    assert.deepEqual(splitSchemeNamePort('web'), { scheme: '', name: 'web', port: '' });
    assert.deepEqual(splitSchemeNamePort('web:8080'), { scheme: '', name: 'web', port: '8080' });
    assert.deepEqual(splitSchemeNamePort('https:web:admin'), { scheme: 'https', name: 'web', port: 'admin' });
    assert.equal(splitSchemeNamePort('ftp:web:80'), undefined);
    assert.equal(splitSchemeNamePort(':80'), undefined);
    assert.equal(splitSchemeNamePort('a:b:c:d'), undefined);
  });

  it('cleans the backend path, keeping a trailing slash', () => {
    assert.equal(backendPath(''), '/');
    assert.equal(backendPath('/'), '/');
    assert.equal(backendPath('a/b'), '/a/b');
    assert.equal(backendPath('a/b/'), '/a/b/');
    assert.equal(backendPath('a/../../b/./c'), '/b/c');
    assert.equal(backendPath('a b/c:d@e?f#g'), '/a%20b/c:d@e%3Ff%23g');
  });

  it('lets proxy requests of any method through the syncer tunnel, and Endpoints reads', () => {
    for (const method of ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS']) {
      assert.equal(isTunnelledRequest(method, '/api/v1/namespaces/ns/pods/web:8080/proxy/a/b?x=1'), true);
      assert.equal(isTunnelledRequest(method, '/api/v1/namespaces/ns/services/https:web:http/proxy'), true);
    }
    assert.equal(isTunnelledRequest('GET', '/api/v1/namespaces/ns/endpoints/web'), true);
    assert.equal(isTunnelledRequest('DELETE', '/api/v1/namespaces/ns/endpoints/web'), false);
    assert.equal(isTunnelledRequest('GET', '/api/v1/namespaces/ns/configmaps/web/proxy/'), false);
    for (const escape of ['/proxy/../../../secrets/x', '/proxy/%2e%2E/x', '/proxy/.', '/proxy/..\\..\\secrets']) {
      assert.equal(isTunnelledRequest('GET', `/api/v1/namespaces/ns/pods/web${escape}`), false, escape);
    }
  });
});
