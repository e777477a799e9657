import { DateTime } from 'luxon';
import { Money } from '../model/money.js';
import type PDFKitDocument from 'pdfkit';

/** One dish line of a receipt. */
export interface ReceiptLine {
  name: string;
  amount: number;
  /** Chosen options, e.g. `Size: 40 cm; Extra toppings: Mozzarella`. */
  configText?: string | null;
  /** Full line price (unit price × amount). */
  linePrice: string | number;
}

/** Everything a printable order statement shows; amounts are decimal strings or numbers. */
export interface Receipt {
  organizationName: string;
  restaurant: { name: string; address: string; phone: string };
  orderNumber: string;
  /** ISO 8601 timestamp (or a Date) of the order. */
  createdAt: string | Date;
  /** Time zone to print `createdAt` in, e.g. `Europe/Berlin`. */
  timezone: string;
  client: { name: string; phone: string };
  addressText: string;
  lines: ReceiptLine[];
  itemsTotal: string | number;
  deliveryPrice: string | number;
  finalSum: string | number;
  /** `cash`, `card`, `courier_card`, `external_service_card_online`; other values print as given. */
  paymentSource: string;
  /** Amount the client pays with and needs change from; `null` when no change is needed. */
  change: string | number | null;
  /** The client's comment, if any. */
  comment?: string | null;
  /** Printed after every amount when given, e.g. `EUR`; the API itself names no currency. */
  currency?: string;
}

/** Options of {@link renderReceiptPdf}. */
export interface ReceiptPdfOptions {
  /** Deflate page content (default `true`); `false` keeps the text searchable in the raw bytes. */
  compress?: boolean;
}

/** Renders the receipt as a complete, self-contained HTML5 page (inline CSS, no external assets). */
export function renderReceiptHtml(receipt: Receipt): string {
  const view = receiptView(receipt);
  const rows = (pairs: [string, string][]) =>
    pairs.map(([label, value]) => `<dt>${escapeHtml(label)}</dt><dd>${escapeHtml(value)}</dd>`).join('\n      ');
  const lines = view.lines
    .map(
      (line) => `        <tr>
          <td class="qty">${escapeHtml(line.quantity)}</td>
          <td>${escapeHtml(line.name)}${line.config ? `<div class="config">${escapeHtml(line.config)}</div>` : ''}</td>
          <td class="num">${escapeHtml(line.price)}</td>
        </tr>`,
    )
    .join('\n');
  const totals = view.totals
    .map(
      ([label, value], i) =>
        `        <tr${i === view.totals.length - 1 ? ' class="grand"' : ''}><th colspan="2">${escapeHtml(label)}</th><td class="num">${escapeHtml(value)}</td></tr>`,
    )
    .join('\n');
  return `<!DOCTYPE html>
<html lang="en">
  <head>
    <meta charset="utf-8">
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <title>${escapeHtml(view.title)}</title>
    <style>
      * { box-sizing: border-box; }
      body { margin: 0; padding: 16px; font: 14px/1.4 "Helvetica Neue", Arial, sans-serif; color: #111; background: #fff; }
      main { max-width: 420px; margin: 0 auto; }
      h1 { font-size: 20px; margin: 0 0 4px; }
      h2 { font-size: 16px; margin: 16px 0 8px; }
      .restaurant { margin: 0; color: #444; }
      dl { display: grid; grid-template-columns: max-content 1fr; gap: 2px 12px; margin: 0; }
      dt { font-weight: bold; }
      dd { margin: 0; overflow-wrap: anywhere; }
      table { width: 100%; border-collapse: collapse; margin-top: 16px; }
      th, td { padding: 4px 0; vertical-align: top; text-align: left; }
      thead th { border-bottom: 1px solid #111; }
      tfoot th { font-weight: normal; text-align: right; padding-right: 12px; }
      tfoot tr:first-child th, tfoot tr:first-child td { border-top: 1px solid #111; }
      tr.grand th, tr.grand td { font-weight: bold; font-size: 16px; }
      .qty { width: 3em; white-space: nowrap; }
      .num { text-align: right; white-space: nowrap; }
      .config { font-size: 12px; color: #555; }
      .payment { margin-top: 16px; }
      @media print {
        body { padding: 0; }
        main { max-width: none; }
        @page { margin: 12mm; }
      }
    </style>
  </head>
  <body>
    <main>
      <header>
        <h1>${escapeHtml(view.organization)}</h1>
        <p class="restaurant">${view.restaurant.map(escapeHtml).join('<br>')}</p>
      </header>
      <h2>${escapeHtml(view.heading)}</h2>
      <dl>
      ${rows(view.details)}
      </dl>
      <table>
        <thead><tr><th class="qty">Qty</th><th>Dish</th><th class="num">Price</th></tr></thead>
        <tbody>
${lines}
        </tbody>
        <tfoot>
${totals}
        </tfoot>
      </table>
      <dl class="payment">
      ${rows(view.payment)}
      </dl>
    </main>
  </body>
</html>
`;
}

/**
 * pdfkit, loaded on demand (the HTML receipt never needs it, and a browser bundle keeps it in a chunk of
 * its own). Its Node build reads the standard fonts from files; its browser build has none until they
 * are registered, so the two the receipt uses are registered there.
 */
async function loadPdfkit(): Promise<typeof PDFKitDocument> {
  const pdfkit = (await import('pdfkit')) as unknown as {
    default: typeof PDFKitDocument;
    registerStdFonts?: (...fonts: object[]) => void;
  };
  if (pdfkit.registerStdFonts) {
    const [helvetica, helveticaBold] = await Promise.all([
      import('pdfkit/standard-fonts/Helvetica'),
      import('pdfkit/standard-fonts/HelveticaBold'),
    ]);
    pdfkit.registerStdFonts(helvetica.default, helveticaBold.default);
  }
  return pdfkit.default;
}

/**
 * Renders the receipt as an A5 PDF with the built-in Helvetica, so no font files are needed. That font
 * only covers Windows-1252 (German umlauts and ß included); other characters are transliterated or
 * printed as "?". The PDF's creation date is the order time, so the same receipt gives the same bytes.
 */
export async function renderReceiptPdf(receipt: Receipt, options: ReceiptPdfOptions = {}): Promise<Uint8Array> {
  const view = receiptView(receipt);
  const PDFDocument = await loadPdfkit();
  const created = toDateTime(receipt.createdAt, receipt.timezone).toJSDate();
  const doc = new PDFDocument({
    size: 'A5',
    margin: 36,
    compress: options.compress ?? true,
    info: { Title: pdfText(view.title), Author: pdfText(view.organization), CreationDate: created },
  });
  const done = new Promise<Uint8Array>((resolve, reject) => {
    const chunks: Uint8Array[] = [];
    doc.on('data', (chunk: Uint8Array) => chunks.push(chunk));
    // No Buffer.concat: in a browser (the mock under MSW) there is no Buffer.
    doc.on('end', () => {
      const pdf = new Uint8Array(chunks.reduce((sum, chunk) => sum + chunk.byteLength, 0));
      let at = 0;
      for (const chunk of chunks) {
        pdf.set(chunk, at);
        at += chunk.byteLength;
      }
      resolve(pdf);
    });
    doc.on('error', reject);
  });

  const left = doc.page.margins.left;
  const width = doc.page.width - left - doc.page.margins.right;
  const priceWidth = 80;

  const ensureRoom = (height: number) => {
    if (doc.y + height > doc.page.height - doc.page.margins.bottom) doc.addPage();
  };
  const rule = () => {
    ensureRoom(12);
    doc.moveDown(0.3);
    doc
      .moveTo(left, doc.y)
      .lineTo(left + width, doc.y)
      .lineWidth(0.5)
      .stroke();
    doc.moveDown(0.5);
  };
  // A left text that may wrap and a right-aligned amount on its first line.
  const row = (text: string, amount: string, font = 'Helvetica', size = 10, indent = 0) => {
    doc.font(font).fontSize(size);
    const textWidth = width - priceWidth - indent;
    ensureRoom(doc.heightOfString(pdfText(text), { width: textWidth }));
    const top = doc.y;
    doc.text(pdfText(text), left + indent, top, { width: textWidth });
    const bottom = doc.y;
    if (amount) doc.text(pdfText(amount), left + width - priceWidth, top, { width: priceWidth, align: 'right' });
    doc.x = left;
    doc.y = Math.max(bottom, doc.y);
  };
  const labelled = (label: string, value: string) => {
    doc.font('Helvetica').fontSize(10);
    const labelWidth = 70;
    ensureRoom(doc.heightOfString(pdfText(value), { width: width - labelWidth }));
    const top = doc.y;
    doc.font('Helvetica-Bold').text(pdfText(label), left, top, { width: labelWidth });
    const bottom = doc.y;
    doc.font('Helvetica').text(pdfText(value), left + labelWidth, top, { width: width - labelWidth });
    doc.x = left;
    doc.y = Math.max(bottom, doc.y);
  };

  doc.font('Helvetica-Bold').fontSize(16).text(pdfText(view.organization), { width });
  doc.font('Helvetica').fontSize(10).fillColor('#444444');
  for (const text of view.restaurant) doc.text(pdfText(text), { width });
  doc.fillColor('#000000');
  rule();
  doc.font('Helvetica-Bold').fontSize(13).text(pdfText(view.heading), { width });
  doc.moveDown(0.3);
  for (const [label, value] of view.details) labelled(label, value);
  rule();
  for (const line of view.lines) {
    row(`${line.quantity}  ${line.name}`, line.price);
    if (line.config) {
      doc.fillColor('#555555');
      row(line.config, '', 'Helvetica', 8.5, 18);
      doc.fillColor('#000000');
    }
    doc.moveDown(0.2);
  }
  rule();
  view.totals.forEach(([label, value], i) => {
    const grand = i === view.totals.length - 1;
    row(label, value, grand ? 'Helvetica-Bold' : 'Helvetica', grand ? 12 : 10);
  });
  doc.moveDown(0.6);
  for (const [label, value] of view.payment) labelled(label, value);
  doc.end();
  return done;
}

const PAYMENT_LABELS: Record<string, string> = {
  cash: 'Cash',
  card: 'Card, paid online',
  courier_card: 'Card, paid to the courier',
  external_service_card_online: 'Card, paid online via an external service',
};

interface ReceiptView {
  title: string;
  organization: string;
  restaurant: string[];
  heading: string;
  details: [string, string][];
  lines: { quantity: string; name: string; config: string | null; price: string }[];
  totals: [string, string][];
  payment: [string, string][];
}

// Both renderers print from this one view, so the HTML and the PDF cannot drift apart.
function receiptView(receipt: Receipt): ReceiptView {
  const amount = (value: string | number) => `${Money.of(value)}${receipt.currency ? ` ${receipt.currency}` : ''}`;
  const finalSum = Money.of(receipt.finalSum);
  const details: [string, string][] = [
    ['Placed', toDateTime(receipt.createdAt, receipt.timezone).toFormat('yyyy-MM-dd HH:mm ZZ')],
    ['Client', receipt.client.name],
    ['Phone', receipt.client.phone],
    ['Address', receipt.addressText],
  ];
  if (receipt.comment) details.push(['Comment', receipt.comment]);
  const payment: [string, string][] = [['Payment', PAYMENT_LABELS[receipt.paymentSource] ?? receipt.paymentSource]];
  if (receipt.change !== null && receipt.change !== undefined) {
    const change = Money.of(receipt.change);
    payment.push(['Pays with', amount(receipt.change)]);
    if (change.atLeast(finalSum)) payment.push(['Change due', amount(change.minus(finalSum).toString())]);
  }
  return {
    title: `Receipt ${receipt.orderNumber} - ${receipt.organizationName}`,
    organization: receipt.organizationName,
    restaurant: [receipt.restaurant.name, receipt.restaurant.address, receipt.restaurant.phone].filter(Boolean),
    heading: `Order ${receipt.orderNumber}`,
    details,
    lines: receipt.lines.map((line) => ({
      quantity: `${line.amount} ×`,
      name: line.name,
      config: line.configText || null,
      price: amount(line.linePrice),
    })),
    totals: [
      ['Dishes', amount(receipt.itemsTotal)],
      ['Delivery', amount(receipt.deliveryPrice)],
      ['Total', amount(receipt.finalSum)],
    ],
    payment,
  };
}

function toDateTime(value: string | Date, timezone: string): DateTime {
  const parsed = value instanceof Date ? DateTime.fromJSDate(value) : DateTime.fromISO(value, { setZone: true });
  if (!parsed.isValid) throw new RangeError(`createdAt is not a valid timestamp: ${String(value)}`);
  const local = parsed.setZone(timezone);
  // An unknown zone should not cost the client its receipt: keep the offset the timestamp came with.
  return local.isValid ? local : parsed;
}

const HTML_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => HTML_ESCAPES[char] as string);
}

// The characters Helvetica (WinAnsiEncoding) can show besides printable Latin-1, as pdfkit maps them.
const WIN_ANSI_EXTRA = new Set('€‚ƒ„…†‡ˆ‰Š‹ŒŽ‘’“”•–—˜™š›œžŸ');
const TRANSLITERATIONS: Record<string, string> = { Ł: 'L', ł: 'l', Đ: 'D', đ: 'd', ı: 'i', Ħ: 'H', ħ: 'h', '−': '-' };

function isControl(char: string): boolean {
  const code = char.codePointAt(0) as number;
  return code < 0x20 || (code >= 0x7f && code <= 0x9f);
}

function isWinAnsi(char: string): boolean {
  const code = char.codePointAt(0) as number;
  return (code >= 0x20 && code <= 0x7e) || (code >= 0xa0 && code <= 0xff) || WIN_ANSI_EXTRA.has(char);
}

/**
 * pdfkit writes characters outside the font's encoding as broken glyph codes, so map them first:
 * control characters become spaces, accents outside Windows-1252 are dropped (ő → o), a few letters are
 * transliterated (Ł → L), and anything else becomes "?".
 */
function pdfText(text: string): string {
  let out = '';
  for (const char of text.normalize('NFC')) {
    if (isWinAnsi(char)) out += char;
    else if (isControl(char)) out += ' ';
    else if (TRANSLITERATIONS[char]) out += TRANSLITERATIONS[char];
    else {
      const base = char.normalize('NFD').replace(/\p{M}/gu, '');
      out += base !== '' && [...base].every(isWinAnsi) ? base : '?';
    }
  }
  return out;
}
