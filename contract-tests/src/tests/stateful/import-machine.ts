import fc from 'fast-check';
import type { TestContext } from '../../runner/context.js';
import type { Rec } from '../../runner/fixtures.js';
import { component, defineTest, opPointer } from '../define.js';
import { deleteDishStep, editable, fresh, pick, runMachine, sameRecords, type Machine, type Step } from './machine.js';
import { allOrderPages } from './order-pages.js';

interface ImportedDish {
  name: string;
  price: number;
  externalId: string | null;
  categoryId: number;
}

/** What a client import and the orders that name its clients have shown of one client. */
interface ClientModel {
  /** The client's id once an order showed it; undefined while no order named the client since its import. */
  id: number | undefined;
}

interface ImportModel {
  /** Marks this sequence's external ids (its own on a shared service, where no reset separates sequences). */
  prefix: string;
  dishes: Map<number, ImportedDish>;
  categories: Map<number, string>;
  /** Dishes a sequence may change without a reset: those its own imports made. */
  ours: Set<number>;
  /** The job id of the last import started, per kind. */
  jobs: { menu?: unknown; clients?: unknown };
  /** Clients by external id, as far as the sequence knows them. */
  clients: Map<string, ClientModel>;
  /** The orders the sequence imported for clients: order id → the client_id it showed. */
  orders: Map<number, number>;
}

/** The dishes a menu import may carry: each has its own external id, so a re-import finds it again. */
const MENU_POOL = ['Margherita', 'Carbonara', 'Tiramisu', 'Minestrone'];
const CATEGORY_NAMES = ['Mains', 'Desserts'];
/** A dish sent without external_id: a re-import cannot find it, so it is a new dish every time. */
const SPECIAL = 'Daily special';
const CLIENT_POOL = ['anna', 'ben', 'cleo'];

const menuDish = fc.record({
  pool: fc.integer({ min: 0, max: MENU_POOL.length - 1 }),
  price: fc.constantFrom(7.5, 9, 12.25),
  category: fc.constantFrom(...CATEGORY_NAMES),
});

function dishExternalId(m: ImportModel, pool: number): string {
  return `${m.prefix}-dish-${pool}`;
}

function checkImportedDish(t: TestContext, actual: Rec, expected: ImportedDish, what: string): void {
  // What a dish without an external_id shows is decided (`null`): an empty string means the same under spec.
  const unset = expected.externalId === null && (actual.external_id ?? null) !== null;
  if (unset)
    t.decided(
      component('schemas', 'DraftDish/properties/external_id'),
      false,
      `${what}: dish ${actual.id} without an external_id shows ${JSON.stringify(actual.external_id)}, not null`,
    );
  const externalId = unset && actual.external_id === '' ? null : (actual.external_id ?? null);
  t.equal(
    [actual.name, Number(actual.price), externalId, actual.draft_category_id],
    [expected.name, expected.price, expected.externalId, expected.categoryId],
    `${what}: name, price, external_id and category of dish ${actual.id}`,
  );
}

async function checkMenu(m: ImportModel, tc: TestContext): Promise<void> {
  sameRecords(tc, await tc.fixtures.dishes(), m.dishes, 'the draft dishes listed', (dish, expected) =>
    checkImportedDish(tc, dish, expected, 'the list'),
  );
  sameRecords(tc, await tc.fixtures.categories(), m.categories, 'the draft categories listed', (c, name) =>
    tc.equal(c.name, name, `name of category ${c.id}`),
  );
}

/** Starts an import and follows it to its end (the control API's clock, else polling within `timeouts.importMs`). */
async function runImport(
  tc: TestContext,
  kind: 'menu' | 'clients',
  body: Rec,
  query: Rec = {},
): Promise<{ jobId: unknown }> {
  await tc.fixtures.waitForImport(kind);
  const path = `/api/organizations/${tc.fixtures.orgId}/import/${kind}`;
  const started = await (await tc.as('staffMember')).post(path, body, { query });
  // Decided: 202 Accepted; the spec gives only the body `{status: queued, job_id}`.
  tc.status(started, tc.full ? 202 : '2xx', `starting a ${kind} import`);
  tc.equal(started.body?.status, 'queued', `status of a ${kind} import started while none runs`);
  const jobId = started.body?.job_id as unknown;
  tc.check(typeof jobId === 'string' || typeof jobId === 'number', `a queued ${kind} import without job_id`);
  const state = await tc.fixtures.waitForImport(kind);
  tc.equal(state.job_id, jobId, `job_id of the ${kind} import state once the job is over`);
  // Decided: a finished job says `done` (the spec names only `working`).
  if (tc.full) tc.equal(state.job_status, 'done', `job_status of the finished ${kind} import`);
  return { jobId };
}

function menuSteps(t: TestContext): fc.Arbitrary<Step<ImportModel>>[] {
  const importMenu = fc
    .tuple(fc.uniqueArray(menuDish, { minLength: 1, maxLength: 4, selector: (d) => d.pool }), fc.boolean())
    .map(([picked, special]): Step<ImportModel> => ({
      label: `importMenu(${picked.map((d) => `${MENU_POOL[d.pool]} ${d.price.toFixed(2)} in ${d.category}`).join(', ')}${special ? `, ${SPECIAL} without external_id` : ''})`,
      writes: true,
      async run(m, tc) {
        const sent: { name: string; price: number; category_name: string; external_id?: string }[] = [
          ...picked.map((d) => ({
            name: MENU_POOL[d.pool]!,
            price: d.price,
            category_name: d.category,
            external_id: dishExternalId(m, d.pool),
          })),
          ...(special ? [{ name: SPECIAL, price: 5, category_name: CATEGORY_NAMES[0]! }] : []),
        ];
        const { jobId } = await runImport(tc, 'menu', { dishes: sent });
        m.jobs.menu = jobId;
        // Menu import rules 1 and 3: the import replaces the whole menu; a dish re-imported by a known
        // external_id keeps its id. Categories named only by dishes are created, once per name.
        const known = new Map(
          [...m.dishes].filter(([, d]) => d.externalId !== null).map(([id, d]) => [d.externalId!, id]),
        );
        const categories = await tc.fixtures.categories();
        tc.equal(
          categories.map((c) => c.name as string).sort(),
          [...new Set(sent.map((d) => d.category_name))].sort(),
          'the draft categories after a menu import without `categories` (one per category_name of its dishes)',
        );
        const dishes = await tc.fixtures.dishes();
        tc.equal(dishes.length, sent.length, 'number of draft dishes after the import (it replaces the whole menu)');
        m.dishes.clear();
        m.ours.clear();
        m.categories = new Map(categories.map((c) => [c.id as number, c.name as string]));
        for (const dish of sent) {
          const externalId = dish.external_id ?? null;
          const listed = tc.present(
            dishes.find((d) => (externalId ? d.external_id === externalId : d.name === dish.name)),
            `the imported dish ${externalId ?? dish.name} is not listed`,
          );
          const id = listed.id as number;
          const kept = externalId ? known.get(externalId) : undefined;
          if (kept !== undefined) tc.equal(id, kept, `id of the dish re-imported by its external_id ${externalId}`);
          const categoryId = listed.draft_category_id as number;
          tc.equal(m.categories.get(categoryId), dish.category_name, `the category of the imported dish ${id}`);
          m.dishes.set(id, { name: dish.name, price: dish.price, externalId, categoryId });
          m.ours.add(id);
        }
      },
    }));
  return [
    importMenu,
    importMenu,
    deleteDishStep(t),
    fc.tuple(fc.nat(), fc.constantFrom(3.5, 15)).map(([n, price]) => ({
      label: `updateDishPrice(pick ${n}, ${price.toFixed(2)})`,
      writes: true,
      applies: (m) => editable(t, m.dishes, m.ours).length > 0,
      async run(m, tc) {
        const id = pick(editable(tc, m.dishes, m.ours), n)!;
        const response = await (
          await tc.as('staffMember')
        ).put(`/api/draft_dishes/${id}`, { draft_dish: { price: price.toFixed(2) } });
        tc.status(response, '2xx', `updating the price of dish ${id}`);
        m.dishes.get(id)!.price = price;
      },
    })),
    fc.constant({
      label: 'readMenuImport()',
      async run(m, tc) {
        const state = await readImport(tc, 'menu');
        if (m.jobs.menu !== undefined) tc.equal(state.job_id, m.jobs.menu, 'job_id of the menu import state');
      },
    }),
    fc.constant({ label: 'listMenu()', run: checkMenu }),
  ];
}

async function readImport(tc: TestContext, kind: 'menu' | 'clients'): Promise<Rec> {
  const response = await (await tc.as('staffMember')).get(`/api/organizations/${tc.fixtures.orgId}/import/${kind}`);
  tc.status(response, 200, `reading the ${kind} import state`);
  return tc.dig<Rec>(response, ['body'], `the ${kind} import state`);
}

function clientExternalId(m: ImportModel, pool: number): string {
  return `${m.prefix}-client-${CLIENT_POOL[pool]}`;
}

/** The list filtered by client_id: every order of the sequence imported for that client, and none of another. */
async function checkClientFilter(m: ImportModel, tc: TestContext, clientId: number): Promise<void> {
  const listed = new Set((await allOrderPages(tc, 'staffMember', { client_id: clientId })).map((o) => o.id as number));
  for (const [orderId, client] of m.orders)
    tc.check(
      listed.has(orderId) === (client === clientId),
      `order ${orderId} of client ${client} is ${listed.has(orderId) ? '' : 'not '}listed under client_id=${clientId}`,
    );
}

function clientSteps(t: TestContext): fc.Arbitrary<Step<ImportModel>>[] {
  const fromScratch = t.hasControl && t.config.capabilities.resetBetweenTests;
  const clientPick = fc.integer({ min: 0, max: CLIENT_POOL.length - 1 });
  const importClients = fc
    .tuple(
      fc.uniqueArray(clientPick, { minLength: 1, maxLength: CLIENT_POOL.length }),
      // One import in four starts from scratch: the others show what an import keeps.
      fromScratch ? fc.integer({ min: 0, max: 3 }).map((n) => n === 0) : fc.constant(false),
    )
    .map(([picked, scratch]): Step<ImportModel> => ({
      label: `importClients(${picked.map((p) => CLIENT_POOL[p]).join(', ')}${scratch ? ', from_scratch' : ''})`,
      async run(m, tc) {
        const clients = picked.map((p) => ({
          external_id: clientExternalId(m, p),
          name: `Client ${CLIENT_POOL[p]}`,
        }));
        const { jobId } = await runImport(tc, 'clients', { clients }, scratch ? { from_scratch: true } : {});
        m.jobs.clients = jobId;
        // from_scratch deletes the previously created clients first: their ids are no longer assigned.
        if (scratch) m.clients.clear();
        for (const client of clients) {
          const known = m.clients.get(client.external_id);
          // Decided: a known external_id is updated in place (same client); the spec does not say.
          m.clients.set(client.external_id, { id: known && tc.full ? known.id : undefined });
        }
      },
    }));
  const orderFor = clientPick.map((p): Step<ImportModel> => ({
    label: `orderFor(client ${CLIENT_POOL[p]})`,
    async run(m, tc) {
      const externalId = clientExternalId(m, p);
      const draft = await tc.fixtures.orderDraft({ client_external_id: externalId });
      const response = await tc.fixtures.importOrders([draft]);
      tc.status(response, '2xx', `importing an order for the client ${externalId}`);
      tc.equal(response.body?.organization_import?.[0]?.status, 'imported', `the order for the client ${externalId}`);
      const order = tc.present(
        await tc.fixtures.findOrderByContact(draft.contact_name as string),
        `the order imported for the client ${externalId} is not listed`,
      );
      const clientId = order.client_id as number;
      tc.check(Number.isInteger(clientId), `the order for the client ${externalId} has no client_id`);
      const known = m.clients.get(externalId);
      // Order import rules 3: the client found by client_external_id is assigned, else one is created.
      if (known?.id !== undefined)
        tc.equal(clientId, known.id, `client_id of an order for the client ${externalId} (as earlier orders)`);
      for (const [other, client] of m.clients)
        if (other !== externalId && client.id === clientId)
          tc.fail(`an order for the client ${externalId} got client ${clientId}, the client of ${other}`);
      m.clients.set(externalId, { id: clientId });
      m.orders.set(order.id as number, clientId);
      await checkClientFilter(m, tc, clientId);
    },
  }));
  const listOrdersOfClient = clientPick.map((p): Step<ImportModel> => ({
    label: `listOrdersOfClient(${CLIENT_POOL[p]})`,
    applies: (m) => m.clients.get(clientExternalId(m, p))?.id !== undefined,
    run: (m, tc) => checkClientFilter(m, tc, m.clients.get(clientExternalId(m, p))!.id!),
  }));
  // Faults of imports show in chains of imports and orders: they come more often than reads.
  return [
    importClients,
    importClients,
    orderFor,
    orderFor,
    orderFor,
    listOrdersOfClient,
    fc.constant({
      label: 'readClientImport()',
      async run(m, tc) {
        const state = await readImport(tc, 'clients');
        if (m.jobs.clients !== undefined) tc.equal(state.job_id, m.jobs.clients, 'job_id of the client import state');
      },
    }),
  ];
}

/** Without the control API's clock an import takes as long as the implementation needs (the mock: 3 s). */
const SEQUENCES_WITHOUT_CLOCK = 3;

const importMachine: Machine<ImportModel> = {
  // Each write twice: two menu imports, a dish's price changed twice, a dish deleted, two client imports and two
  // orders for one client.
  tour: [
    /^importMenu\(/,
    /^updateDishPrice\(pick 0, /,
    /^updateDishPrice\(pick 0, /,
    /^deleteDish\(pick 0\)$/,
    /^importMenu\(/,
    /^importClients\((?![^)]*from_scratch)(?=[^)]*anna)[^)]*\)$/,
    /^orderFor\(client anna\)$/,
    /^orderFor\(client anna\)$/,
    /^importClients\((?![^)]*from_scratch)(?=[^)]*anna)[^)]*\)$/,
    /^orderFor\(client anna\)$/,
  ],
  runs(t, configured) {
    if (t.hasControl || configured <= SEQUENCES_WITHOUT_CLOCK) return configured;
    t.warn(
      `${SEQUENCES_WITHOUT_CLOCK} of ${configured} sequences: without the control API's clock every import runs in real time`,
    );
    return SEQUENCES_WITHOUT_CLOCK;
  },
  decidedOnly: [
    'the 202 of a started import and the `done` job_status of a finished one',
    "a client import keeping a known client's id: the spec does not say that a re-imported client is updated",
  ],
  skipped: (t) => [
    ...(t.config.capabilities.menuImport
      ? []
      : ['the menu import commands: they replace the whole draft menu (capabilities.menuImport)']),
    ...(t.hasControl && t.config.capabilities.resetBetweenTests
      ? []
      : ['client imports with from_scratch=true: they delete every imported client (they need resets)']),
  ],
  async observe(m, tc) {
    if (tc.config.capabilities.menuImport) await checkMenu(m, tc);
  },
  async init(t) {
    await fresh(t);
    const model: ImportModel = {
      prefix: t.unique('ct-import'),
      dishes: new Map(),
      categories: new Map(),
      ours: new Set(),
      jobs: {},
      clients: new Map(),
      orders: new Map(),
    };
    if (t.config.capabilities.menuImport) {
      await t.fixtures.waitForImport('menu');
      for (const d of await t.fixtures.dishes())
        model.dishes.set(d.id as number, {
          name: d.name as string,
          price: Number(d.price),
          externalId: (d.external_id as string | undefined) ?? null,
          categoryId: d.draft_category_id as number,
        });
      for (const c of await t.fixtures.categories()) model.categories.set(c.id as number, c.name as string);
    }
    return model;
  },
  commands: (t) => [...(t.config.capabilities.menuImport ? menuSteps(t) : []), ...clientSteps(t)],
};

/** The import machine as a test: menu and client imports, and the reads that show their effects. */
export const importMachineTest = defineTest({
  id: 'stateful.imports',
  title:
    'Menu import rules 1 and 3, Order import rules 3 (model-based): random sequences of menu and client imports, dish changes and orders naming imported clients agree with a model',
  clauses: [
    'Menu import rules 1',
    'Menu import rules 2',
    'Menu import rules 3',
    'Order import rules 3',
    'States and transitions: row 5',
    'Endpoints > Organizations: POST /api/organizations/:id/import/menu',
    'Endpoints > Organizations: GET /api/organizations/:id/import/menu',
    'Endpoints > Organizations: POST /api/organizations/:id/import/clients',
    'Endpoints > Organizations: GET /api/organizations/:id/import/clients',
    'Resources > Import payloads > Menu import body: dishes[].category_name',
    'Resources > Import payloads > Menu import body: dishes[].external_id',
    'Resources > Import payloads > Client import body: external_id',
    'Resources > Order: client_id',
  ],
  profile: 'spec',
  decisions: [
    opPointer('/api/organizations/{id}/import/menu', 'post', '/responses/202'),
    opPointer('/api/organizations/{id}/import/clients', 'post'),
    opPointer('/api/organizations/{id}/import/clients', 'post', '/responses/202'),
  ],
  kind: 'stateful',
  needs: ['mutations'],
  // Without the control API's clock, each import is polled for in real time (up to timeouts.importMs).
  timeoutMs: 180_000,
  operations: [
    'importMenu',
    'getMenuImport',
    'importClients',
    'getClientImport',
    'importOrders',
    'listOrders',
    'listDraftDishes',
    'listDraftCategories',
    'updateDraftDish',
    'deleteDraftDish',
  ],
  run: (t) => runMachine(t, importMachine),
});
