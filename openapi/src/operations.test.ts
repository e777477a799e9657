import { expect, test } from 'vitest';
import { openapiDocument } from './generated/document.js';
import { listOperations, Router, type OperationInfo } from './operations.js';

const operations = listOperations(openapiDocument);
const router = new Router(operations);

/** The router as it was before routes were split by segment count: every route of the method, in priority order. */
function linearMatch(
  ops: OperationInfo[],
  method: string,
  pathname: string,
): { operationId: string; params: Record<string, string> } | undefined {
  const routes = ops
    .flatMap((operation) =>
      operation.routes.map((template) => {
        const names: string[] = [];
        let literals = 0;
        const pattern = template
          .split('/')
          .filter(Boolean)
          .map((segment) =>
            segment.replace(/\{([^}]+)\}|[^{]+/g, (part, name?: string) => {
              if (name) {
                names.push(name);
                return '([^/]+)';
              }
              literals += 1;
              return part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
            }),
          )
          .join('/');
        return { operation, regex: new RegExp(`^/${pattern}/?$`), names, literals };
      }),
    )
    .sort((a, b) => b.literals - a.literals || a.names.length - b.names.length)
    .filter((route) => route.operation.method === method.toLowerCase());
  for (const route of routes) {
    const found = route.regex.exec(pathname);
    if (found) {
      return {
        operationId: route.operation.operationId,
        params: Object.fromEntries(route.names.map((name, index) => [name, decodeURIComponent(found[index + 1]!)])),
      };
    }
  }
  return undefined;
}

function matched(
  r: Router,
  method: string,
  path: string,
): { operationId: string; params: Record<string, string> } | undefined {
  const found = r.match(method, path);
  return found ? { operationId: found.operation.operationId, params: found.params } : undefined;
}

test('the router picks the same operation and parameters as a scan of every route, for every route of the document', () => {
  const paths = new Set<string>();
  for (const operation of operations) {
    for (const template of operation.routes) {
      const filled = template.replace(/\{[^}]+\}/g, '42');
      const named = template.replace(/\{([^}]+)\}/g, (_, name: string) => name);
      for (const path of [
        filled,
        `${filled}/`,
        `${filled}//`,
        named,
        `${named}/`,
        filled.replace(/42/g, 'a%2Fb'),
        `/x${filled}`,
      ])
        paths.add(path);
    }
  }
  for (const odd of [
    '/',
    '//',
    '///',
    '',
    'api/orders',
    '/api',
    '/api/',
    '/api//orders',
    '/api/orders/1/items/2/3/4/5/6',
  ])
    paths.add(odd);
  let compared = 0;
  for (const path of paths) {
    for (const method of ['GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'HEAD', 'get']) {
      expect(matched(router, method, path), `${method} ${path}`).toEqual(linearMatch(operations, method, path));
      compared += 1;
    }
  }
  expect(compared).toBeGreaterThan(1000);
});

test('a document with a route at the root still matches it, with or without the extra slash', () => {
  const root = { ...operations[0]!, operationId: 'root', method: 'get' as const, routes: ['/'] };
  const ops = [root, ...operations];
  const withRoot = new Router(ops);
  for (const path of ['/', '//', '/api/orders/5001', '/api/orders/5001/']) {
    expect(matched(withRoot, 'GET', path), path).toEqual(linearMatch(ops, 'GET', path));
  }
  expect(withRoot.match('GET', '//')?.operation.operationId).toBe('root');
});
