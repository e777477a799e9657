/** A place where the written spec says "not shown" and this description decided. */
export interface Decision {
  /** Where the marker sits, as a readable trail (e.g. `GET /api/orders › parameter sort_by`). */
  where: string;
  /** JSON Pointer of the marked element inside the bundled document. */
  pointer: string;
  /** The operation the marker belongs to, when it is inside one. */
  operationId?: string;
  /** The decision and its reasoning, as written in `x-decision`. */
  why: string;
}

const SILENT = new Set([
  'properties',
  'content',
  'schema',
  'components',
  'paths',
  'webhooks',
  'parameters',
  'responses',
]);
const METHODS = new Set(['get', 'put', 'post', 'delete', 'patch', 'head', 'options', 'trace']);

function escapePointer(segment: string): string {
  return segment.replace(/~/g, '~0').replace(/\//g, '~1');
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Lists every `x-decision` marker of a bundled document, in document order.
 * @example listDecisions(openapiDocument).filter((d) => d.operationId === 'listOrders')
 */
export function listDecisions(document: unknown): Decision[] {
  const found: Decision[] = [];
  const visit = (node: unknown, pointer: string[], trail: string[], operationId: string | undefined): void => {
    if (Array.isArray(node)) {
      node.forEach((item, index) => {
        const named = isRecord(item) && typeof item.name === 'string' ? String(item.name) : String(index);
        const label = pointer.at(-1) === 'parameters' ? `parameter ${named}` : named;
        visit(item, [...pointer, String(index)], [...trail, label], operationId);
      });
      return;
    }
    if (!isRecord(node)) return;
    const why = node['x-decision'];
    if (typeof why === 'string') {
      found.push({
        where: trail.join(' › ') || 'document',
        pointer: pointer.length ? `/${pointer.map(escapePointer).join('/')}` : '',
        ...(operationId ? { operationId } : {}),
        why: why.trim(),
      });
    }
    for (const [key, value] of Object.entries(node)) {
      if (key === 'x-decision' || key === 'examples' || key === 'example') continue;
      let label = key;
      let opId = operationId;
      const parentKey = pointer.at(-1);
      if (pointer.length === 2 && (pointer[0] === 'paths' || pointer[0] === 'webhooks') && METHODS.has(key)) {
        label = `${key.toUpperCase()} ${parentKey}`;
        opId = isRecord(value) && typeof value.operationId === 'string' ? value.operationId : undefined;
        visit(value, [...pointer, key], [label], opId);
        continue;
      }
      if (pointer.length === 2 && pointer[0] === 'components') {
        // components/<kind>/<name> reads as "schema Order", "response NotFound", "header Retry-After".
        const kind = String(parentKey).replace(/ies$/, 'y').replace(/s$/, '');
        visit(value, [...pointer, key], [`${kind} ${key}`], opId);
        continue;
      }
      if (key === 'components' || (pointer.length === 1 && pointer[0] === 'components')) {
        visit(value, [...pointer, key], trail, opId);
        continue;
      }
      if (SILENT.has(key)) {
        visit(value, [...pointer, key], trail, opId);
        continue;
      }
      if (parentKey === 'parameters' && operationId) label = `parameter ${label}`;
      if (parentKey === 'properties') label = `.${label}`;
      if (parentKey === 'responses' && operationId) label = `response ${label}`;
      visit(value, [...pointer, key], [...trail, label], opId);
    }
  };
  visit(document, [], [], undefined);
  return found;
}

/**
 * The anchor of a decision's entry in DECISIONS.md, derived from its marker's pointer.
 * @example decisionAnchor('/components/schemas/Timetable/properties/day') // 'decision-components-schemas-timetable-properties-day'
 */
export function decisionAnchor(pointer: string): string {
  const slug = pointer
    .replace(/~1/g, '/')
    .replace(/~0/g, '~')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
  return `decision-${slug || 'document'}`;
}
