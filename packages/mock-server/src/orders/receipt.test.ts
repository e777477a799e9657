import { expect, test } from 'vitest';
import { renderReceiptHtml, renderReceiptPdf, type Receipt } from './receipt.js';

/** Order 5001 of the example world. */
const ORDER_5001: Receipt = {
  organizationName: 'Pizza Piccolo',
  restaurant: { name: 'Pizza Piccolo Kreuzberg', address: 'Oranienstraße 45, 10969 Berlin', phone: '+49 30 1234501' },
  orderNumber: 'PP-5001',
  createdAt: '2026-11-20T18:30:00+01:00',
  timezone: 'Europe/Berlin',
  client: { name: 'Jonas Becker', phone: '+49 170 1112233' },
  addressText: 'Wiener Straße 18, apartment 4, floor 2, Berlin',
  lines: [
    { name: 'Margherita', amount: 1, configText: 'Size: 40 cm; Extra toppings: Mozzarella', linePrice: '15.00' },
    { name: 'Cola 0.33 l', amount: 1, configText: null, linePrice: '2.50' },
  ],
  itemsTotal: '17.50',
  deliveryPrice: '2.50',
  finalSum: 20,
  paymentSource: 'cash',
  change: 50,
};

/** The text a PDF shows, one string per text object, from its uncompressed content streams. */
function pdfTextRuns(pdf: Uint8Array): string[] {
  const raw = Buffer.from(pdf).toString('latin1');
  return [...raw.matchAll(/\[((?:<[0-9a-f]*>|[\s\d.-])*)\] TJ/g)].map((match) =>
    [...(match[1] as string).matchAll(/<([0-9a-f]*)>/g)]
      .map((hex) => new TextDecoder('windows-1252').decode(Buffer.from(hex[1] as string, 'hex')))
      .join(''),
  );
}

test('the HTML receipt is a complete page with the order, lines, totals and change', () => {
  const html = renderReceiptHtml(ORDER_5001);
  expect(html.startsWith('<!DOCTYPE html>\n<html lang="en">')).toBe(true);
  expect(html.trimEnd().endsWith('</html>')).toBe(true);
  expect(html).toContain('<meta charset="utf-8">');
  expect(html).toContain('<title>Receipt PP-5001 - Pizza Piccolo</title>');
  expect(html).toContain('<h2>Order PP-5001</h2>');
  expect(html).toContain('Oranienstraße 45, 10969 Berlin');
  expect(html).toContain('<dt>Placed</dt><dd>2026-11-20 18:30 +01:00</dd>');
  expect(html).toContain('<div class="config">Size: 40 cm; Extra toppings: Mozzarella</div>');
  expect(html).toContain('<td class="num">15.00</td>');
  expect(html).toContain('<tr class="grand"><th colspan="2">Total</th><td class="num">20.00</td></tr>');
  expect(html).toContain('<dt>Payment</dt><dd>Cash</dd>');
  expect(html).toContain('<dt>Pays with</dt><dd>50.00</dd>');
  expect(html).toContain('<dt>Change due</dt><dd>30.00</dd>');
});

test('the HTML receipt loads nothing from outside', () => {
  const html = renderReceiptHtml(ORDER_5001);
  expect(html).not.toMatch(/<link|<script|<img|src=|href=|url\(/i);
  expect(html).toContain('<style>');
});

test('every client-supplied text is HTML-escaped', () => {
  const html = renderReceiptHtml({
    ...ORDER_5001,
    client: { name: '<script>alert(1)</script>', phone: '"><img src=x onerror=alert(1)>' },
    comment: "Ring twice & say 'hi'",
    lines: [{ name: 'Pizza <b>', amount: 1, configText: '<i>x</i>', linePrice: '1.00' }],
  });
  expect(html).not.toContain('<script>alert');
  expect(html).not.toContain('<img');
  expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
  expect(html).toContain('&quot;&gt;&lt;img src=x onerror=alert(1)&gt;');
  expect(html).toContain('<dt>Comment</dt><dd>Ring twice &amp; say &#39;hi&#39;</dd>');
  expect(html).toContain('Pizza &lt;b&gt;');
});

test('the time is printed in the zone time zone, whatever offset created_at carries', () => {
  const html = renderReceiptHtml({ ...ORDER_5001, createdAt: '2026-07-01T16:30:00Z' });
  expect(html).toContain('<dd>2026-07-01 18:30 +02:00</dd>');
  const tokyo = renderReceiptHtml({
    ...ORDER_5001,
    createdAt: new Date('2026-11-20T17:30:00Z'),
    timezone: 'Asia/Tokyo',
  });
  expect(tokyo).toContain('<dd>2026-11-21 02:30 +09:00</dd>');
  // An unknown zone falls back to the offset the timestamp was written with.
  expect(renderReceiptHtml({ ...ORDER_5001, timezone: 'Nowhere/Land' })).toContain('<dd>2026-11-20 18:30 +01:00</dd>');
});

test('card payments show no change; a currency code is appended when given', () => {
  const html = renderReceiptHtml({ ...ORDER_5001, paymentSource: 'courier_card', change: null, currency: 'EUR' });
  expect(html).toContain('<dt>Payment</dt><dd>Card, paid to the courier</dd>');
  expect(html).not.toContain('Pays with');
  expect(html).toContain('<td class="num">20.00 EUR</td>');
});

test('change smaller than the sum is shown without a negative change due', () => {
  const html = renderReceiptHtml({ ...ORDER_5001, change: '10' });
  expect(html).toContain('<dt>Pays with</dt><dd>10.00</dd>');
  expect(html).not.toContain('Change due');
});

test('unknown payment sources print as given', () => {
  expect(renderReceiptHtml({ ...ORDER_5001, paymentSource: 'voucher' })).toContain('<dd>voucher</dd>');
});

test('a malformed amount or timestamp throws', () => {
  expect(() => renderReceiptHtml({ ...ORDER_5001, finalSum: 'twenty' })).toThrow(RangeError);
  expect(() => renderReceiptHtml({ ...ORDER_5001, createdAt: 'yesterday' })).toThrow(RangeError);
});

test('the PDF receipt is a complete PDF showing the order number, lines and totals', async () => {
  const pdf = await renderReceiptPdf(ORDER_5001, { compress: false });
  const raw = Buffer.from(pdf).toString('latin1');
  expect(pdf).toBeInstanceOf(Uint8Array);
  expect(raw.startsWith('%PDF-')).toBe(true);
  expect(raw.trimEnd().endsWith('%%EOF')).toBe(true);
  expect(raw).toContain('(Receipt PP-5001 - Pizza Piccolo)'); // the document title
  const text = pdfTextRuns(pdf);
  expect(text).toContain('Order PP-5001');
  expect(text).toContain('1 ×  Margherita');
  expect(text).toContain('Size: 40 cm; Extra toppings: Mozzarella');
  expect(text).toContain('2026-11-20 18:30 +01:00');
  expect(text).toContain('20.00');
  expect(text).toContain('30.00');
});

test('German text renders with umlauts and ß in the PDF', async () => {
  const pdf = await renderReceiptPdf(
    { ...ORDER_5001, client: { name: 'Max Müller', phone: '+49 151 2345678' } },
    { compress: false },
  );
  const text = pdfTextRuns(pdf);
  expect(text).toContain('Max Müller');
  expect(text).toContain('Oranienstraße 45, 10969 Berlin');
});

test('characters Helvetica cannot show are transliterated or replaced in the PDF', async () => {
  const pdf = await renderReceiptPdf(
    { ...ORDER_5001, client: { name: 'Łukasz Wałęsa', phone: '+48\t123' }, comment: '寿司 → 2nd floor' },
    { compress: false },
  );
  const text = pdfTextRuns(pdf);
  expect(text).toContain('Lukasz Walesa');
  expect(text).toContain('+48 123');
  expect(text).toContain('?? ? 2nd floor');
});

test('the PDF is compressed by default and the same receipt gives the same bytes', async () => {
  const first = await renderReceiptPdf(ORDER_5001);
  const second = await renderReceiptPdf(ORDER_5001);
  expect(Buffer.from(first).toString('latin1')).toContain('/FlateDecode');
  expect(Buffer.from(first).equals(Buffer.from(second))).toBe(true);
});

test('a long order flows onto more pages', async () => {
  const lines = Array.from({ length: 80 }, (_, i) => ({
    name: `Dish ${i + 1}`,
    amount: 1,
    configText: 'Size: 30 cm',
    linePrice: '1.00',
  }));
  const pdf = await renderReceiptPdf({ ...ORDER_5001, lines }, { compress: false });
  const raw = Buffer.from(pdf).toString('latin1');
  expect(raw.match(/\/Type \/Page\b/g)?.length).toBeGreaterThan(1);
  expect(pdfTextRuns(pdf)).toContain('1 ×  Dish 80');
});
