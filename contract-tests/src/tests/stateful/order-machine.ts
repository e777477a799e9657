import fc from 'fast-check';
import type { Role } from '../../config.js';
import type { TestContext } from '../../runner/context.js';
import type { Rec } from '../../runner/fixtures.js';
import { component, defineTest, opPointer } from '../define.js';
import { fresh, pick, runMachine, type Machine, type Step } from './machine.js';

type Status = 'pending' | 'accepted' | 'cooking' | 'ready' | 'delivery' | 'complete' | 'cancelled';

interface OrderModel {
  draft: Rec;
  status: Status;
  contactName: string;
  description: string | null;
  courierId: number | null;
  confirmed: boolean;
}

interface OrdersModel {
  orders: Map<number, OrderModel>;
  courierId: number;
}

const FORWARD: Status[] = ['pending', 'accepted', 'cooking', 'ready', 'delivery', 'complete'];
const STATUSES: Status[] = [...FORWARD, 'cancelled'];
const TERMINAL = new Set<Status>(['complete', 'cancelled']);
const ORDERS = 2;

/** The answer the decided state machine gives: 200 (and the next status) or the refusal. */
function transition(from: Status, to: Status, role: Role): { status: number; next: Status } {
  // A courier may set only delivery and complete, even the status the order has already (403 before anything else).
  if (role === 'courier' && to !== 'delivery' && to !== 'complete') return { status: 403, next: from };
  if (from === to) return { status: 200, next: from };
  if (TERMINAL.has(from)) return { status: 409, next: from };
  if (role === 'courier') return { status: 200, next: to };
  if (to === 'cancelled' || FORWARD.indexOf(to) === FORWARD.indexOf(from) + 1) return { status: 200, next: to };
  return { status: 409, next: from };
}

function checkOrder(t: TestContext, order: Rec, expected: OrderModel, what: string): void {
  t.equal(order.status, expected.status, `${what}: status of order ${order.id}`);
  t.equal(order.contact_name, expected.contactName, `${what}: contact_name of order ${order.id}`);
  t.equal(order.courier_id ?? null, expected.courierId, `${what}: courier_id of order ${order.id}`);
  if (expected.description !== null)
    t.equal(order.description, expected.description, `${what}: description of order ${order.id}`);
  t.equal(
    order.restaurant_confirmed_at != null,
    expected.confirmed,
    `${what}: order ${order.id} confirmed by the restaurant`,
  );
}

/** Every page of a list: checks that pages do not overlap and add up to meta.total_count when it is given. */
async function allPages(t: TestContext, role: Role, query: Rec): Promise<Rec[]> {
  const client = await t.as(role);
  const orders: Rec[] = [];
  for (let page = 1; page <= 40; page += 1) {
    const response = await client.get('/api/orders', { ...query, page });
    t.status(response, 200, `listing orders ${JSON.stringify({ ...query, page })}`);
    const rows = (response.body?.orders ?? []) as Rec[];
    for (const row of rows)
      t.check(!orders.some((o) => o.id === row.id), `order ${row.id} is on two pages of ${JSON.stringify(query)}`);
    orders.push(...rows);
    if (rows.length === 0 || page >= Number(response.body?.meta?.page_count ?? page)) break;
  }
  return orders;
}

const orderMachine: Machine<OrdersModel> = {
  async observe(m, tc) {
    const listed = await allPages(tc, 'staffMember', { per_page: 100 });
    for (const [id, order] of m.orders)
      checkOrder(
        tc,
        tc.present(
          listed.find((o) => o.id === id),
          `order ${id} is missing from the list`,
        ),
        order,
        'the list',
      );
  },
  async init(t) {
    await fresh(t);
    const drafts: Rec[] = [];
    for (let i = 0; i < ORDERS; i += 1) drafts.push(await t.fixtures.orderDraft());
    const imported = await t.fixtures.importOrders(drafts);
    t.status(imported, '2xx', 'importing the orders of the sequence');
    const listed = await allPages(t, 'staffMember', { per_page: 100 });
    const orders = new Map<number, OrderModel>();
    for (const draft of drafts) {
      const order = t.present(
        listed.find((o) => o.contact_name === draft.contact_name),
        `the imported order ${draft.external_id} is not in the list`,
      );
      orders.set(order.id as number, {
        draft,
        status: 'pending',
        contactName: draft.contact_name as string,
        description: null,
        courierId: null,
        confirmed: false,
      });
    }
    return { orders, courierId: await t.fixtures.accountId('courier') };
  },
  commands() {
    const orderPick = fc.nat();
    // Mostly the next step of the machine, so sequences walk orders far; any status for the refusals.
    const target = fc.oneof(
      { arbitrary: fc.constant<Status | 'next'>('next'), weight: 3 },
      { arbitrary: fc.constantFrom<Status | 'next'>(...STATUSES), weight: 2 },
    );
    const setStatus = fc
      .tuple(orderPick, target, fc.constantFrom<Role>('staffMember', 'dispatcher', 'courier'))
      .map(([n, wanted, role]): Step<OrdersModel> => ({
        label: `setStatus(order pick ${n}, ${wanted}, as ${role})`,
        writes: true,
        // A courier changes only the orders assigned to it (its scope).
        applies: (m) => role !== 'courier' || [...m.orders.values()].some((o) => o.courierId === m.courierId),
        async run(m, tc) {
          const ids = [...m.orders]
            .filter(([, o]) => role !== 'courier' || o.courierId === m.courierId)
            .map(([id]) => id);
          const id = pick(ids, n)!;
          const order = m.orders.get(id)!;
          let to: Status;
          if (wanted === 'next') to = FORWARD[FORWARD.indexOf(order.status) + 1] ?? order.status;
          else to = wanted;
          const expected = transition(order.status, to, role);
          const response = await (
            await tc.as(role)
          ).request({
            method: 'PUT',
            path: `/api/orders/${id}/status`,
            query: { status: to, send_sms: false },
          });
          tc.status(response, expected.status, `${role} sets order ${id} from ${order.status} to ${to}`);
          order.status = expected.next;
          if (expected.status === 200)
            checkOrder(tc, response.body.order as Rec, order, 'the answer to the status change');
        },
      }));
    const steps: fc.Arbitrary<Step<OrdersModel>>[] = [
      // Status changes are what orders live through: they come three times as often as other commands.
      setStatus,
      setStatus,
      setStatus,
      fc.tuple(orderPick, fc.boolean()).map(([n, assign]) => ({
        label: `assignCourier(order pick ${n}, ${assign ? 'courier' : 'none'})`,
        writes: true,
        applies: (m) => [...m.orders.values()].some((o) => !TERMINAL.has(o.status)),
        async run(m, tc) {
          const id = pick(
            [...m.orders].filter(([, o]) => !TERMINAL.has(o.status)).map(([i]) => i),
            n,
          )!;
          const courierId = assign ? m.courierId : null;
          const response = await (
            await tc.as('dispatcher')
          ).put(`/api/orders/${id}`, { order: { courier_id: courierId } });
          tc.status(response, 200, `assigning courier ${courierId} to order ${id}`);
          m.orders.get(id)!.courierId = courierId;
          checkOrder(tc, response.body.order as Rec, m.orders.get(id)!, 'the answer to the update');
        },
      })),
      fc
        .tuple(
          orderPick,
          fc.constantFrom('Ada', 'Ben', 'Cleo'),
          fc.constantFrom('ring twice', 'no onions', 'leave at door'),
        )
        .map(([n, name, description]) => ({
          label: `updateOrder(order pick ${n}, contact ${name}, "${description}")`,
          writes: true,
          async run(m, tc) {
            const id = pick(m.orders.keys(), n)!;
            const order = m.orders.get(id)!;
            const contactName = `${order.draft.contact_name} ${name}`;
            const response = await (
              await tc.as('staffMember')
            ).put(`/api/orders/${id}`, {
              order: { contact_name: contactName, description },
            });
            tc.status(response, 200, `updating order ${id}`);
            order.contactName = contactName;
            order.description = description;
            checkOrder(tc, response.body.order as Rec, order, 'the answer to the update');
          },
        })),
      orderPick.map((n) => ({
        label: `confirm(order pick ${n}, as staffMember)`,
        writes: true,
        async run(m, tc) {
          const id = pick(m.orders.keys(), n)!;
          const order = m.orders.get(id)!;
          const response = await (await tc.as('staffMember')).put(`/api/orders/${id}/confirm`);
          // A cancelled order can no longer be confirmed; a repeated confirmation keeps the first one.
          if (order.status === 'cancelled' && !order.confirmed) {
            tc.refused(response, 409, `confirming the cancelled order ${id}`);
            return;
          }
          tc.status(response, 200, `confirming order ${id}`);
          order.confirmed = true;
          checkOrder(tc, response.body.order as Rec, m.orders.get(id)!, 'the answer to the confirmation');
        },
      })),
      fc
        .tuple(
          orderPick,
          fc.constantFrom<'update' | 'ignore' | undefined>('update', 'ignore', undefined),
          fc.constantFrom('Dora', 'Emil'),
        )
        .map(([n, existing, name]) => ({
          label: `reimport(order pick ${n}, existing=${existing ?? '(omitted)'}, contact ${name})`,
          writes: true,
          // A re-import sends the order as imported (pending); only pending orders keep the model simple.
          applies: (m) => [...m.orders.values()].some((o) => o.status === 'pending'),
          async run(m, tc) {
            const id = pick(
              [...m.orders].filter(([, o]) => o.status === 'pending').map(([i]) => i),
              n,
            )!;
            const order = m.orders.get(id)!;
            const contactName = `${order.draft.contact_name} ${name}`;
            const response = await tc.fixtures.importOrders([{ ...order.draft, contact_name: contactName }], existing);
            tc.status(response, '2xx', `re-importing order ${id}`);
            const item = response.body?.organization_import?.[0] as Rec | undefined;
            tc.equal(
              item?.status,
              existing === 'update' ? 'imported' : 'ignored',
              `the import status of order ${id} with existing=${existing}`,
            );
            if (existing === 'update') {
              order.contactName = contactName;
              // The import format has no description: what an update makes of it is not the model's business.
              order.description = null;
            }
          },
        })),
      orderPick.map((n) => ({
        label: `readOrder(order pick ${n})`,
        async run(m, tc) {
          const id = pick(m.orders.keys(), n)!;
          const response = await (await tc.as('dispatcher')).get(`/api/orders/${id}`);
          tc.status(response, 200, `reading order ${id}`);
          checkOrder(tc, response.body.order as Rec, m.orders.get(id)!, 'GET by id');
        },
      })),
      fc
        .tuple(fc.option(fc.constantFrom(...STATUSES), { nil: undefined }), fc.integer({ min: 2, max: 40 }))
        .map(([status, perPage]) => ({
          label: `listOrders(${status ? `status=${status}, ` : ''}per_page=${perPage}, every page)`,
          async run(m, tc) {
            const listed = await allPages(tc, 'staffMember', { per_page: perPage, ...(status ? { status } : {}) });
            for (const row of listed)
              if (status) tc.equal(row.status, status, `status of order ${row.id} in the list filtered by status`);
            for (const [id, order] of m.orders) {
              const row = listed.find((o) => o.id === id);
              if (status && order.status !== status) {
                tc.check(!row, `order ${id} (${order.status} in the model) is listed under status=${status}`);
                continue;
              }
              checkOrder(tc, tc.present(row, `order ${id} is missing from the list`), order, 'the list');
            }
          },
        })),
      fc.constant({
        label: 'courierList()',
        async run(m, tc) {
          const listed = await allPages(tc, 'courier', { per_page: 100 });
          for (const [id, order] of m.orders) {
            const row = listed.find((o) => o.id === id);
            if (order.courierId !== m.courierId)
              tc.check(!row, `order ${id} of another courier is in the courier's list`);
            else
              checkOrder(
                tc,
                tc.present(row, `order ${id} of the courier is missing from the courier's list`),
                order,
                "the courier's list",
              );
          }
        },
      }),
    ];
    return steps;
  },
};

/** The order machine as a test: updates, confirmations, status changes by role, lists, courier view and re-imports. */
export const orderMachineTest = defineTest({
  id: 'stateful.orders',
  title:
    'Endpoints > Orders (model-based): random sequences of updates, confirmations, status changes by role, re-imports and paged, filtered lists agree with a model',
  clauses: [
    'Endpoints > Orders: GET /orders',
    'Endpoints > Orders: GET /orders/:id',
    'Endpoints > Orders: PUT /orders/:id',
    'Endpoints > Orders: PUT /orders/:id/status',
    'Endpoints > Orders: PUT /orders/:id/confirm',
    'States and transitions: row 1',
    'States and transitions: row 2',
    'States and transitions: row 3',
    'States and transitions: row 7',
    'States and transitions: row 8',
  ],
  profile: 'full',
  decisions: [
    component('schemas', 'OrderStatus'),
    opPointer('/api/orders/{id}/status', 'put', '/responses/200'),
    opPointer('/api/orders/{id}', 'put', '/responses/200'),
  ],
  kind: 'stateful',
  needs: ['mutations', 'role:courier'],
  operations: ['listOrders', 'getOrder', 'updateOrder', 'setOrderStatus', 'confirmOrder', 'importOrders'],
  run: (t) => runMachine(t, orderMachine),
});
