import { expect, test } from 'vitest';
import { useCarrierWorld } from '../support/carrier-world.js';
import {
  callbacks,
  eventually,
  expectOk,
  mainOrder,
  placeOrder,
  registerCarrier,
  SERVICES,
  setOrderStatus,
} from '../support/world.js';

const startCarrierWorld = useCarrierWorld();

test.each(SERVICES)(
  'order created → callback → load → assign → deliver, with the main API showing each status and the courier position (%s)',
  async (service) => {
    const events: string[] = [];
    const { world, agent, served } = await startCarrierWorld({
      service,
      agent: { positions: { minIntervalMs: 0, minDistanceM: 0 } },
      beforeStart: (agent) => {
        agent.on('newOrder', ({ order }) => void events.push(`newOrder ${order.order_status}`));
        agent.on('orderStatusChanged', ({ previous, current }) => void events.push(`${previous} → ${current}`));
      },
    });
    await registerCarrier(world, served.url);

    const order = await placeOrder(world);
    await eventually(() => agent.view(order.id) !== undefined, 5000, 'the order to be loaded');
    const view = agent.view(order.id)!.order;
    expect(view).toMatchObject({
      id: order.id,
      number: order.number,
      order_status: 'new',
      delivery: { status: 'idle' },
    });
    expect(view.destination).toMatchObject({ address: 'Wiener Straße 18', lat: 52.4975, lon: 13.431 });

    // The dispatcher gives the order the courier record the carrier's courier plays, so the main API shows its position.
    await expectOk(
      world.admin.PUT('/api/orders/{id}', { params: { path: { id: order.id } }, body: { order: { courier_id: 501 } } }),
    );

    const seen: string[] = [(await mainOrder(world, order.id)).order.status];
    for (const status of ['accepted', 'cooking', 'ready'] as const) {
      await setOrderStatus(world, order.id, status);
      seen.push((await mainOrder(world, order.id)).order.status);
    }
    await eventually(() => agent.view(order.id)?.order.order_status === 'prepared', 5000, 'the agent to see prepared');

    const tracker = agent.tracker(view.secure_id);
    await tracker.assignCourier({ name: 'Tom Richter', phone: '+49 160 9876543', externalId: 4711 });
    await tracker.startDelivery();
    await agent.outbox.drained();
    seen.push((await mainOrder(world, order.id)).order.status);

    const route = [
      [52.4995, 13.4205],
      [52.4985, 13.4255],
      [52.4978, 13.4298],
    ] as const;
    const positions: unknown[] = [];
    for (const [lat, lon] of route) {
      await tracker.reportPosition(lat, lon);
      await agent.outbox.drained();
      const main = await mainOrder(world, order.id);
      positions.push(main.couriers.find((c) => c.id === 501)?.last_known_position);
    }
    await tracker.markDelivered('Handed over to Jonas Becker.');
    await agent.outbox.drained();
    const final = await mainOrder(world, order.id);
    seen.push(final.order.status);

    expect(seen).toEqual(['pending', 'accepted', 'cooking', 'ready', 'delivery', 'complete']);
    expect(positions).toEqual(route.map(([lat, lon]) => ({ lat, lon, updated_at: expect.any(String) })));

    // The callbacks the carrier caused itself (delivery, complete) come back too; the agent follows the service's state.
    await eventually(() => agent.view(order.id)?.order.order_status === 'complete', 5000, 'the agent to see complete');
    await agent.idle();
    expect(events).toEqual([
      'newOrder new',
      'new → confirmed',
      'confirmed → preparing',
      'preparing → prepared',
      'prepared → delivering',
      'delivering → complete',
    ]);
    const sent = await callbacks(world, { order_id: order.id });
    expect(sent.map((c) => `${c.type}${c.query.status ? ` ${c.query.status}` : ''} ${c.state}`)).toEqual([
      'order_created delivered',
      'order_status_changed accepted delivered',
      'order_status_changed cooking delivered',
      'order_status_changed ready delivered',
      'order_status_changed delivery delivered',
      'order_status_changed complete delivered',
    ]);
    expect(sent.every((c) => c.attempts.length === 1 && c.attempts[0]!.status === 202)).toBe(true);

    // The audit trail tells the story of the order: callback received → order loaded → pushed → answer.
    const trail = agent.audit.forOrder(order.id);
    const steps = trail.map((e) => e.step);
    expect(steps.slice(0, 3)).toEqual(['callback_received', 'order_loaded', 'event_emitted']);
    expect(steps).toContain('update_pushed');
    expect(steps).toContain('update_answered');
    const answered = trail.filter((e) => e.step === 'update_answered').map((e) => e.detail);
    if (service === 'mock') {
      expect(answered[0]).toBe('accepted: delivery courier_assigned, order prepared');
      expect(answered.at(-1)).toBe('accepted: delivery delivered, order complete');
    } else {
      // The independent implementation answers updates with 204: sent all the same, the order read back.
      expect(new Set(answered)).toEqual(new Set(['accepted (the answer held no order)']));
      expect(agent.view(order.id)?.order.delivery.status).toBe('delivered');
    }
    console.log(
      `audit trail of ${order.number}:\n${trail.map((e) => `  ${e.step.padEnd(18)} ${e.detail}`).join('\n')}`,
    );
  },
);
