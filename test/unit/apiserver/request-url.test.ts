import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { parseRequestUrl } from '../../../src/apiserver/request-url.js';

/** What the server used before: WHATWG URL against a fixed base. */
function viaURL(target: string): { pathname: string; query: [string, string][] } {
  const url = new URL(target, 'https://atrium');
  return { pathname: url.pathname, query: [...url.searchParams] };
}

describe('parseRequestUrl', () => {
  const targets = [
    '/',
    '/api/v1/namespaces/default/configmaps',
    '/api/v1/namespaces/default/configmaps?labelSelector=app%3Dweb%2Ctier+in+(a,b)&limit=500',
    '/apis/apps.example.com/v1/widgets?watch=true&resourceVersion=0&allowWatchBookmarks=true',
    '/clusters/root:org:team/api/v1/pods',
    '/clusters/root%3Aorg/api/v1/pods',
    '/clusters/*/apis/tenancy.kcp.io/v1alpha1/workspaces',
    '/api/v1/namespaces/a/configmaps/name-with.dots',
    '/api/v1/namespaces/a/configmaps/..',
    '/api/v1/namespaces/a/../b/configmaps',
    '/api/v1/./namespaces',
    '/api/v1/%2e%2e/namespaces',
    '/api/v1/%2E/x',
    '//evil.example/api/v1',
    '/api//v1',
    '/api/v1\\namespaces',
    '/api/v1/namespaces?fieldSelector=metadata.name%3D%3Dx#frag',
    '/api/v1/namespaces/a b/configmaps',
    '/api/v1/namespaces/ü/configmaps',
    '/api/v1/namespaces/"x"/configmaps?x="y"',
    '/openapi/v3/apis/apps/v1?hash=ABC',
    '/api?',
    '/api?&&a=1&a=2&b',
    '/api/v1/namespaces/{x}',
    '',
    // URL strips tab/CR/LF anywhere and C0 controls and spaces at the ends of the target: queries holding them must
    // not take the split.
    '/api/v1/namespaces?labelSelector=app%3Dweb\t&limit=5',
    '/api/v1/namespaces?fieldSelector=metadata.name%3D\nx',
    '/api/v1/namespaces?limit=1\r\n',
    '/api/v1/namespaces?limit=1 ',
    '/api/v1/namespaces?limit=1\x00',
    '/api/v1/namespaces?limit=1\x1f\x1f',
    '/api/v1/namespaces?a=x y&b=\x7f',
    '/api/v1/namespaces?\tlimit=1',
  ];
  for (const target of targets) {
    it(`answers as URL does for ${JSON.stringify(target)}`, () => {
      const got = parseRequestUrl(target);
      const want = viaURL(target || '/');
      assert.equal(got.pathname, want.pathname);
      assert.deepEqual([...got.searchParams], want.query);
    });
  }
});
