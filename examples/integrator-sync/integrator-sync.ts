/**
 * Integrator sync: log in, import the menu from menu.json with a progress bar fed by
 * job_percent, publish it, list today's orders with auto-pagination, confirm one, assign a
 * courier and save its receipt as a PDF.
 *
 *   npm run integrator-sync                                   # against a demo mock it starts itself
 *   RESTOAPI_BASE_URL=http://localhost:4010 npm run integrator-sync
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { SingleBar, Presets } from 'cli-progress';
import { createRestoClient, type MenuImportBody, type Order } from '@restoapi/sdk';
import { apiTarget } from '../support/demo-server.js';

/** What a run did, for the caller (and the test) to check. */
export interface SyncReport {
  importedDishes: number;
  publishedVersion: number | undefined;
  todaysOrders: Order[];
  confirmed: Order;
  receiptFile: string;
}

/** Options of {@link integratorSync}. */
export interface SyncOptions {
  baseUrl: string;
  login?: string;
  password?: string;
  menuFile?: string;
  outDir?: string;
  /** Draw a progress bar (only on a terminal). */
  progressBar?: boolean;
  log?: (line: string) => void;
}

const here = path.dirname(fileURLToPath(import.meta.url));

/** Runs the whole sync against a service (or the mock). */
export async function integratorSync(options: SyncOptions): Promise<SyncReport> {
  const log = options.log ?? console.log;
  const api = createRestoClient({ baseUrl: options.baseUrl, timeoutMs: 10_000 });

  const { api_user, staff_members } = await api.session.login(
    options.login ?? 'admin@pizza.demo',
    options.password ?? 'demo',
  );
  const organizationId = staff_members[0]!.organization_id;
  log(`Signed in as ${api_user.name} (organization ${organizationId})`);

  // 1. Import the menu; the job runs asynchronously and reports job_percent.
  const menu = JSON.parse(
    await readFile(options.menuFile ?? path.join(here, 'menu.json'), 'utf8'),
  ) as MenuImportBody & { $schema?: string };
  delete menu.$schema;
  const job = await api.imports.menu(organizationId, menu);
  const bar = options.progressBar
    ? new SingleBar({ format: 'Menu import |{bar}| {percentage}% {job}' }, Presets.shades_classic)
    : undefined;
  bar?.start(100, 0, { job: '' });
  const done = await job.wait({
    intervalMs: 250,
    onProgress: (state) => bar?.update(state.job_percent ?? 0, { job: state.job_status ?? '' }),
  });
  bar?.update(100, { job: done.job_status });
  bar?.stop();
  log(`Menu import ${done.job_status}: ${menu.dishes.length} dishes`);

  // 2. Publish: the drafts become the storefront's menu.
  const published = (await api.organizations.publish(organizationId))?.menu;
  // The spec shows no answer body for publish: a service may answer without the publication's figures.
  log(
    published
      ? `Published menu version ${published.version} (${published.dish_count} dishes in ${published.category_count} categories)`
      : 'Published the menu',
  );

  // 3. Today's orders, newest first, across every page.
  const startOfDay = new Date();
  startOfDay.setHours(0, 0, 0, 0);
  const todaysOrders: Order[] = [];
  for await (const order of api.orders.iterate({ sort_by: '-created_at', per_page: 25 })) {
    if (new Date(order.created_at) < startOfDay) break;
    todaysOrders.push(order);
  }
  log(`Today's orders: ${todaysOrders.map((o) => `${o.number} (${o.status})`).join(', ') || 'none'}`);

  // 4. Confirm an order that needs it and give it a courier.
  // Just after midnight there may be none yet; then the newest order stands in.
  const candidates =
    todaysOrders.length > 0 ? todaysOrders : (await api.orders.list({ sort_by: '-created_at', per_page: 5 })).orders;
  const target =
    candidates.find((o) => o.restaurant_confirmed_at === null && !['complete', 'cancelled'].includes(o.status)) ??
    candidates[0];
  if (!target) throw new Error('There is no order to confirm');
  await api.orders.confirm(target.id);
  const { couriers } = await api.couriers.list({ organization_id: organizationId });
  const courier = couriers[0]!;
  const { order: confirmed } = await api.orders.update(target.id, { courier_id: courier.id });
  log(`Confirmed ${confirmed.number} at ${confirmed.restaurant_confirmed_at} and assigned ${courier.name}`);

  // 5. The printable receipt as a PDF file.
  const pdf = await api.orders.receiptPdf(confirmed.id);
  const outDir = options.outDir ?? path.join(process.cwd(), 'reports');
  await mkdir(outDir, { recursive: true });
  const receiptFile = path.join(outDir, `receipt-${confirmed.number}.pdf`);
  await writeFile(receiptFile, new Uint8Array(await pdf.arrayBuffer()));
  log(`Receipt saved to ${receiptFile}`);

  await api.session.logout();
  return {
    importedDishes: menu.dishes.length,
    publishedVersion: published?.version,
    todaysOrders,
    confirmed,
    receiptFile,
  };
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const target = await apiTarget();
  if (target.embedded) console.log(`No RESTOAPI_BASE_URL given: started a demo mock at ${target.baseUrl}`);
  try {
    await integratorSync({ baseUrl: target.baseUrl, progressBar: process.stdout.isTTY });
  } catch (error) {
    console.error(error instanceof Error ? error.message : error);
    process.exitCode = 1;
  } finally {
    await target.close();
  }
}
