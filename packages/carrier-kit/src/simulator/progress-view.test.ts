import { expect, test } from 'vitest';
import { carrierOrder } from '../../test/support/fake-carrier-api.js';
import { ProgressView, formatProgress } from './progress-view.js';

const courier = { name: 'Tom Richter', phone: '+49 160 9876543' };

test('formats one line per order', () => {
  const order = carrierOrder(5007);
  const line = formatProgress({
    order,
    phase: 'delivering',
    fraction: 0.6,
    remainingM: 420,
    position: { lat: 0, lon: 0 },
    courier,
  });
  expect(line).toBe('PP-5007  ██████░░░░  60%  delivering        0.4 km to Wiener Straße 18  Tom Richter');
});

test('without a terminal, prints a plain line only when an order changes phase', () => {
  const written: string[] = [];
  const view = new ProgressView({ write: (t) => written.push(t) }, { tty: false });
  view.set('1', 'a delivering 10%', 'delivering');
  view.set('1', 'a delivering 20%', 'delivering');
  view.set('1', 'a delivered', 'delivered');
  expect(written).toEqual(['a delivering 10%\n', 'a delivered\n']);
});

test('on a terminal, redraws the lines in place', () => {
  const written: string[] = [];
  const view = new ProgressView({ write: (t) => written.push(t), isTTY: true }, { throttleMs: 0 });
  view.set('1', 'first', 'delivering');
  view.set('2', 'second', 'delivering');
  view.close();
  view.set('1', 'first again', 'delivered');
  view.close();
  const last = written.at(-1)!;
  expect(last.startsWith('\x1b[2A\r')).toBe(true);
  expect(last).toContain('\x1b[2Kfirst again\n\x1b[2Ksecond\n');
});
