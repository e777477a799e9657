// The RestoAPI mock console: polls the mock's control API on this origin and draws its state.
// Plain browser JavaScript, no framework, no other origin. Data is only ever put in the page as
// text (textContent, attributes), never as HTML.

const POLL_MS = 1000;
const MAX_BACKOFF_MS = 5000;
const STATUSES = ['pending', 'accepted', 'cooking', 'ready', 'delivery', 'complete', 'cancelled'];
const STATUS_LABELS = {
  pending: 'Pending',
  accepted: 'Accepted',
  cooking: 'Cooking',
  ready: 'Ready',
  delivery: 'Out for delivery',
  complete: 'Complete',
  cancelled: 'Cancelled',
};
/** Columns of finished orders show the newest few. */
const FINISHED_SHOWN = 6;
const TABLE_ROWS = 50;
const TRAIL_POINTS = 24;
const SVG_NS = 'http://www.w3.org/2000/svg';
const MAP = { width: 1000, height: 640, padding: 36 };

const $ = (id) => document.getElementById(id);

// ---------- DOM helpers ----------

/** Creates an element; `attrs` become attributes (or properties for `text`/`class`), children are nodes or text. */
function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  setAttrs(el, attrs);
  for (const child of children.flat()) if (child !== null && child !== undefined && child !== false) el.append(child);
  return el;
}

function s(tag, attrs = {}, ...children) {
  const el = document.createElementNS(SVG_NS, tag);
  setAttrs(el, attrs);
  for (const child of children.flat()) if (child !== null && child !== undefined && child !== false) el.append(child);
  return el;
}

function setAttrs(el, attrs) {
  for (const [name, value] of Object.entries(attrs)) {
    if (value === undefined || value === null || value === false) continue;
    if (name === 'text') el.textContent = String(value);
    else el.setAttribute(name, value === true ? '' : String(value));
  }
}

function replaceRows(tbody, rows, emptyText, columns) {
  tbody.replaceChildren(
    ...(rows.length ? rows : [h('tr', { class: 'empty' }, h('td', { colspan: columns, text: emptyText }))]),
  );
}

// ---------- formatting ----------

function time(iso) {
  if (!iso) return '—';
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? String(iso) : d.toISOString().slice(11, 19);
}

function dateTime(iso) {
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? String(iso) : `${d.toISOString().slice(0, 10)} ${d.toISOString().slice(11, 19)}`;
}

function ago(iso, nowMs) {
  if (!iso || !nowMs) return '';
  const minutes = Math.round((nowMs - new Date(iso).getTime()) / 60000);
  // A time after the mock's clock (the clock was set back) gets no relative label.
  if (!Number.isFinite(minutes) || minutes < 0) return '';
  if (minutes < 1) return 'just now';
  if (minutes < 60) return `${minutes} min ago`;
  const hours = Math.floor(minutes / 60);
  return hours < 48 ? `${hours} h ago` : `${Math.floor(hours / 24)} days ago`;
}

function money(value) {
  const n = Number(value);
  return Number.isFinite(n) ? n.toFixed(2) : String(value ?? '');
}

function coordinate(value) {
  return typeof value === 'number' ? value.toFixed(5) : '—';
}

// ---------- state ----------

/** The rows of a table of the state export (`{ nextId, rows }`), or []. */
function rows(state, table) {
  const t = state && state[table];
  return t && Array.isArray(t.rows) ? t.rows : [];
}

/** The first ring of a WKT `POLYGON((lon lat, …))` as [lon, lat] pairs. */
export function parsePolygon(wkt) {
  const match = /\(\s*\(([^()]*)\)/.exec(String(wkt || ''));
  if (!match) return [];
  return match[1]
    .split(',')
    .map((pair) => pair.trim().split(/\s+/).map(Number))
    .filter((p) => p.length >= 2 && Number.isFinite(p[0]) && Number.isFinite(p[1]))
    .map((p) => [p[0], p[1]]);
}

/** Everything the page draws, derived from one state export. */
function model(state, clock) {
  const restaurants = new Map(rows(state, 'restaurants').map((r) => [r.id, r]));
  const organizations = new Map(rows(state, 'organizations').map((o) => [o.id, o]));
  const carriers = new Map(rows(state, 'carriers').map((c) => [c.id, c]));
  const couriers = rows(state, 'couriers');
  const orders = rows(state, 'orders');
  const zones = rows(state, 'deliveryZones').map((z) => ({ ...z, ring: parsePolygon(z.area) }));

  // Restaurants have no coordinates in the API: place each at the centre of its zones' vertices.
  const restaurantPoints = new Map();
  for (const zone of zones) {
    if (!zone.ring.length) continue;
    const entry = restaurantPoints.get(zone.restaurant_id) || { lon: 0, lat: 0, n: 0 };
    for (const [lon, lat] of zone.ring.slice(0, -1).length ? zone.ring.slice(0, -1) : zone.ring) {
      entry.lon += lon;
      entry.lat += lat;
      entry.n += 1;
    }
    restaurantPoints.set(zone.restaurant_id, entry);
  }
  const places = [];
  for (const [id, p] of restaurantPoints) {
    const r = restaurants.get(id);
    places.push({
      id,
      lon: p.lon / p.n,
      lat: p.lat / p.n,
      name: r ? r.name : `Restaurant ${id}`,
      organizationId: r ? r.organization_id : undefined,
    });
  }

  // Couriers on the map: the service's couriers at their last known position, and the carriers'
  // couriers at the position of the delivery block of the order they carry.
  const markers = [];
  for (const c of couriers) {
    const p = c.last_known_position;
    if (!p || typeof p.lat !== 'number' || typeof p.lon !== 'number') continue;
    const carrying = orders.filter((o) => o.courier_id === c.id && !['complete', 'cancelled'].includes(o.status));
    markers.push({
      key: `courier-${c.id}`,
      kind: 'courier',
      label: c.name,
      lat: p.lat,
      lon: p.lon,
      at: p.updated_at,
      orders: carrying,
    });
  }
  for (const o of orders) {
    const d = o.delivery;
    if (!o.secure_id || !d || typeof d.lat !== 'number' || typeof d.lon !== 'number') continue;
    // A carrier's position also moves the order's own courier, already drawn above.
    if (o.courier_id !== null && o.courier_id !== undefined && markers.some((m) => m.key === `courier-${o.courier_id}`))
      continue;
    const carrier = carriers.get(o.carrier_id);
    markers.push({
      key: `carrier-order-${o.id}`,
      kind: 'carrier',
      label: d.courier_name || `${carrier ? carrier.name : 'Carrier'} courier`,
      lat: d.lat,
      lon: d.lon,
      at: undefined,
      orders: [o],
      carrier: carrier ? carrier.name : undefined,
      deliveryStatus: d.status,
    });
  }

  return {
    now: clock && clock.now ? new Date(clock.now).getTime() : undefined,
    clock,
    restaurants,
    organizations,
    carriers,
    couriers,
    orders,
    zones,
    places,
    markers,
    callbacks: rows(state, 'callbacks'),
    notifications: rows(state, 'notifications'),
  };
}

// ---------- orders board ----------

function orderCard(order, m) {
  const restaurant = m.restaurants.get(order.restaurant_id);
  const d = order.delivery;
  const handed = Boolean(order.secure_id);
  return h(
    'li',
    {
      class: 'order-card',
      'data-order-id': order.id,
      'data-status': order.status,
      'data-created-at': order.created_at,
    },
    h(
      'div',
      { class: 'order-top' },
      h('strong', { class: 'order-number', text: order.number }),
      h('span', { class: 'order-sum', text: money(order.final_sum) }),
    ),
    h('div', { class: 'order-meta', text: restaurant ? restaurant.name : `Restaurant ${order.restaurant_id}` }),
    h('div', { class: 'order-meta', text: `${order.address_text || order.address || ''}` }),
    h(
      'div',
      { class: 'order-tags' },
      h('span', { class: 'tag', text: ago(order.created_at, m.now) || time(order.created_at) }),
      order.courier_id ? h('span', { class: 'tag', text: `courier ${order.courier_id}` }) : null,
      handed
        ? h('span', {
            class: `tag tag-carrier delivery-${d ? d.status : 'idle'}`,
            'data-delivery-status': d ? d.status : 'idle',
            text: `carrier: ${d ? d.status.replace('_', ' ') : 'idle'}`,
          })
        : null,
    ),
  );
}

function renderBoard(m) {
  const byStatus = new Map(STATUSES.map((st) => [st, []]));
  for (const o of m.orders) {
    if (!byStatus.has(o.status)) byStatus.set(o.status, []);
    byStatus.get(o.status).push(o);
  }
  const columns = [];
  for (const [status, list] of byStatus) {
    // Newest first by instant (offsets may differ between rows), the higher id first on a tie.
    list.sort((a, b) => Date.parse(b.created_at) - Date.parse(a.created_at) || b.id - a.id);
    const finished = status === 'complete' || status === 'cancelled';
    const shown = finished ? list.slice(0, FINISHED_SHOWN) : list;
    const id = `column-${status}`;
    columns.push(
      h(
        'section',
        { class: `column status-${status}`, 'aria-labelledby': id, 'data-column': status },
        h(
          'h3',
          { id },
          h('span', { text: STATUS_LABELS[status] || status }),
          h('span', { class: 'count', 'aria-label': `${list.length} orders`, text: list.length }),
        ),
        shown.length
          ? h(
              'ol',
              { class: 'cards' },
              shown.map((o) => orderCard(o, m)),
            )
          : h('p', { class: 'none', text: 'No orders' }),
        list.length > shown.length ? h('p', { class: 'more', text: `and ${list.length - shown.length} older` }) : null,
      ),
    );
  }
  $('board').replaceChildren(...columns);
  const open = m.orders.filter((o) => o.status !== 'complete' && o.status !== 'cancelled').length;
  const handed = m.orders.filter((o) => o.secure_id).length;
  $('orders-summary').textContent = `${m.orders.length} orders, ${open} open, ${handed} handed to a carrier`;
}

// ---------- map ----------

let projection;

/** An equirectangular projection fitted to the zones (and anything outside them), recomputed only when they change. */
function fitProjection(m) {
  const points = [];
  for (const z of m.zones) points.push(...z.ring);
  for (const p of m.places) points.push([p.lon, p.lat]);
  for (const mk of m.markers) points.push([mk.lon, mk.lat]);
  for (const o of m.orders)
    if (
      typeof o.longitude === 'number' &&
      typeof o.latitude === 'number' &&
      o.status !== 'complete' &&
      o.status !== 'cancelled'
    )
      points.push([o.longitude, o.latitude]);
  if (!points.length) points.push([13.405, 52.52]);
  let [minLon, minLat, maxLon, maxLat] = [Infinity, Infinity, -Infinity, -Infinity];
  for (const [lon, lat] of points) {
    minLon = Math.min(minLon, lon);
    maxLon = Math.max(maxLon, lon);
    minLat = Math.min(minLat, lat);
    maxLat = Math.max(maxLat, lat);
  }
  const key = [minLon, minLat, maxLon, maxLat].map((n) => n.toFixed(4)).join(',');
  if (projection && projection.contains(minLon, minLat, maxLon, maxLat)) return projection;
  // Some room around, so couriers moving a little do not rescale the map each second.
  const spanLon = Math.max(maxLon - minLon, 0.01);
  const spanLat = Math.max(maxLat - minLat, 0.01);
  minLon -= spanLon * 0.08;
  maxLon += spanLon * 0.08;
  minLat -= spanLat * 0.08;
  maxLat += spanLat * 0.08;
  const kx = Math.cos((((minLat + maxLat) / 2) * Math.PI) / 180);
  const scale = Math.min(
    (MAP.width - 2 * MAP.padding) / ((maxLon - minLon) * kx),
    (MAP.height - 2 * MAP.padding) / (maxLat - minLat),
  );
  const offsetX = (MAP.width - (maxLon - minLon) * kx * scale) / 2;
  const offsetY = (MAP.height - (maxLat - minLat) * scale) / 2;
  projection = {
    key,
    contains: (a, b, c, d) => a >= minLon && b >= minLat && c <= maxLon && d <= maxLat,
    project: (lon, lat) => [round(offsetX + (lon - minLon) * kx * scale), round(offsetY + (maxLat - lat) * scale)],
  };
  return projection;
}

const round = (n) => Math.round(n * 10) / 10;

function organizationClass(id) {
  return `org-${((Number(id) || 1) - 1) % 4}`;
}

let mapSignature = '';
const trails = new Map();

function renderMap(m) {
  const proj = fitProjection(m);
  // Zones, restaurants and destinations change rarely: redraw them only when they do.
  const signature = JSON.stringify([
    proj.key,
    m.zones.map((z) => [z.id, z.area, z.name]),
    m.places,
    m.orders.map((o) => [o.id, o.status, o.secure_id]),
  ]);
  if (signature !== mapSignature) {
    mapSignature = signature;
    $('layer-zones').replaceChildren(
      ...m.zones.map((z) => {
        const restaurant = m.restaurants.get(z.restaurant_id);
        const points = z.ring.map(([lon, lat]) => proj.project(lon, lat).join(',')).join(' ');
        const cx = z.ring.reduce((a, p) => a + p[0], 0) / (z.ring.length || 1);
        const cy = z.ring.reduce((a, p) => a + p[1], 0) / (z.ring.length || 1);
        const [lx, ly] = proj.project(cx, cy);
        return s(
          'g',
          { class: `zone ${organizationClass(z.organization_id)}`, 'data-zone-id': z.id },
          s('polygon', { points }),
          s('text', { x: lx, y: ly + 26, class: 'zone-label', 'text-anchor': 'middle', text: z.name }),
          s('title', {
            text: `${z.name}: ${restaurant ? restaurant.name : `restaurant ${z.restaurant_id}`}, ${z.delivery_time} min, delivery ${money(z.price)}`,
          }),
        );
      }),
    );
    $('layer-restaurants').replaceChildren(
      ...m.places.map((p) => {
        const [x, y] = proj.project(p.lon, p.lat);
        return s(
          'g',
          {
            class: `restaurant ${organizationClass(p.organizationId)}`,
            'data-restaurant-id': p.id,
            transform: `translate(${x} ${y})`,
          },
          s('rect', { x: -7, y: -7, width: 14, height: 14, rx: 3 }),
          s('text', { x: 0, y: -12, 'text-anchor': 'middle', class: 'restaurant-label', text: p.name }),
          s('title', { text: `${p.name} (placed at the centre of its zones)` }),
        );
      }),
    );
    const open = m.orders.filter(
      (o) =>
        o.status !== 'complete' &&
        o.status !== 'cancelled' &&
        typeof o.longitude === 'number' &&
        typeof o.latitude === 'number',
    );
    $('layer-destinations').replaceChildren(
      ...open.map((o) => {
        const [x, y] = proj.project(o.longitude, o.latitude);
        return s(
          'g',
          { class: 'destination', 'data-destination-order': o.id, transform: `translate(${x} ${y})` },
          s('circle', { r: 5 }),
          s('title', { text: `${o.number} (${o.status}) to ${o.address_text || o.address}` }),
        );
      }),
    );
    const placeOf = new Map(m.places.map((p) => [p.id, p]));
    $('layer-routes').replaceChildren(
      ...open
        .filter((o) => o.status === 'delivery' || o.secure_id)
        .map((o) => {
          const from = placeOf.get(o.restaurant_id);
          if (!from) return null;
          const [x1, y1] = proj.project(from.lon, from.lat);
          const [x2, y2] = proj.project(o.longitude, o.latitude);
          return s('line', { class: 'route', x1, y1, x2, y2 });
        })
        .filter(Boolean),
    );
  }

  // Couriers move: keep one element per courier and move it, so the dot glides to its new place.
  const layer = $('layer-couriers');
  const seen = new Set();
  for (const mk of m.markers) {
    seen.add(mk.key);
    const [x, y] = proj.project(mk.lon, mk.lat);
    let g = layer.querySelector(`[data-marker="${mk.key}"]`);
    if (!g) {
      g = s(
        'g',
        { class: `courier courier-${mk.kind}`, 'data-marker': mk.key },
        s('circle', { class: 'halo', r: 13 }),
        s('circle', { class: 'dot', r: 7 }),
        s('text', { x: 11, y: 4, class: 'courier-label' }),
        s('title'),
      );
      g.style.transform = `translate(${x}px, ${y}px)`;
      layer.append(g);
    }
    g.style.transform = `translate(${x}px, ${y}px)`;
    setAttrs(g, { 'data-x': x, 'data-y': y, 'data-lat': mk.lat, 'data-lon': mk.lon });
    g.querySelector('.courier-label').textContent = mk.label;
    g.querySelector('title').textContent =
      `${mk.label} at ${coordinate(mk.lat)}, ${coordinate(mk.lon)}${mk.orders.length ? ` carrying ${mk.orders.map((o) => o.number).join(', ')}` : ''}`;
    const trail = trails.get(mk.key) || [];
    const last = trail[trail.length - 1];
    if (!last || last[0] !== mk.lon || last[1] !== mk.lat) trail.push([mk.lon, mk.lat]);
    trails.set(mk.key, trail.slice(-TRAIL_POINTS));
  }
  for (const g of [...layer.children]) if (!seen.has(g.getAttribute('data-marker'))) g.remove();
  for (const key of [...trails.keys()]) if (!seen.has(key)) trails.delete(key);
  $('layer-trails').replaceChildren(
    ...[...trails.entries()]
      .filter(([, t]) => t.length > 1)
      .map(([key, t]) =>
        s('polyline', {
          class: 'trail',
          'data-trail': key,
          points: t.map(([lon, lat]) => proj.project(lon, lat).join(',')).join(' '),
        }),
      ),
  );

  const zoneCount = m.zones.length;
  $('map-label').textContent =
    `Map of ${zoneCount} delivery zones, ${m.places.length} restaurants and ${m.markers.length} couriers. The same data is in the tables beside it.`;

  replaceRows(
    $('couriers-table').querySelector('tbody'),
    m.markers.map((mk) =>
      h(
        'tr',
        { 'data-marker-row': mk.key },
        h('th', { scope: 'row', text: mk.kind === 'carrier' ? `${mk.label} (${mk.carrier || 'carrier'})` : mk.label }),
        h('td', { text: mk.orders.map((o) => o.number).join(', ') || '—' }),
        h('td', { class: 'num', text: `${coordinate(mk.lat)}, ${coordinate(mk.lon)}` }),
        h('td', { text: mk.at ? time(mk.at) : mk.deliveryStatus ? mk.deliveryStatus.replace('_', ' ') : '—' }),
      ),
    ),
    'No courier has reported a position yet.',
    4,
  );
  replaceRows(
    $('zones-table').querySelector('tbody'),
    m.zones.map((z) => {
      const r = m.restaurants.get(z.restaurant_id);
      return h(
        'tr',
        {},
        h(
          'th',
          { scope: 'row' },
          h('span', { class: `swatch ${organizationClass(z.organization_id)}`, 'aria-hidden': 'true' }),
          z.name,
        ),
        h('td', { text: r ? r.name : z.restaurant_id }),
        h('td', { class: 'num', text: `${z.delivery_time} min` }),
        h('td', { class: 'num', text: money(z.price) }),
      );
    }),
    'No delivery zones.',
    4,
  );
}

// ---------- callbacks and notifications ----------

function renderCallbacks(m) {
  const list = [...m.callbacks].sort((a, b) => b.id - a.id).slice(0, TABLE_ROWS);
  replaceRows(
    $('callbacks-table').querySelector('tbody'),
    list.map((c) => {
      const carrier = m.carriers.get(c.carrier_id);
      const attempts = Array.isArray(c.attempts) ? c.attempts : [];
      const last = attempts[attempts.length - 1];
      const status = c.query && c.query.status ? ` → ${c.query.status}` : '';
      return h(
        'tr',
        { 'data-callback-id': c.id, 'data-state': c.state },
        h('td', { class: 'num', text: c.id }),
        h('td', { text: time(c.created_at) }),
        h('td', { text: carrier ? carrier.name : `carrier ${c.carrier_id}` }),
        h('td', { class: 'num', text: c.order_id }),
        h(
          'td',
          {},
          h('code', { text: c.type }),
          status,
          c.duplicate_of ? h('span', { class: 'tag', text: `duplicate of #${c.duplicate_of}` }) : null,
        ),
        h('td', {}, h('span', { class: `badge state-${c.state}`, text: c.state })),
        h('td', {
          text: attempts.length
            ? `${attempts.length} · last ${last.status ?? last.error ?? last.outcome}${typeof last.duration_ms === 'number' ? ` in ${last.duration_ms} ms` : ''}`
            : 'none yet',
        }),
        h('td', { text: c.next_attempt_at ? time(c.next_attempt_at) : '—' }),
      );
    }),
    'No callbacks yet: register a carrier (POST /__mock/carriers) and place an order.',
    8,
  );
  const carriers = [...m.carriers.values()];
  $('carriers-summary').textContent = carriers.length
    ? `Carriers: ${carriers.map((c) => `${c.name} → ${c.callback_url}${c.signed || c.secret ? ' (signed)' : ''}`).join('; ')}`
    : 'No carrier registered (POST /__mock/carriers).';
}

function renderNotifications(m) {
  const list = [...m.notifications].sort((a, b) => b.id - a.id).slice(0, TABLE_ROWS);
  replaceRows(
    $('notifications-table').querySelector('tbody'),
    list.map((n) =>
      h(
        'tr',
        { 'data-notification-id': n.id },
        h('td', { class: 'num', text: n.id }),
        h('td', { text: time(n.created_at) }),
        h('td', {}, h('span', { class: `badge channel-${n.channel}`, text: n.channel === 'sms' ? 'SMS' : 'E-mail' })),
        h('td', { text: n.to }),
        h('td', { class: 'num', text: n.order_id ?? '—' }),
        h('td', { text: String(n.reason || '').replaceAll('_', ' ') }),
        h('td', { class: 'text' }, n.subject ? h('strong', { text: `${n.subject}: ` }) : null, n.text),
      ),
    ),
    'Nothing sent yet.',
    7,
  );
}

// ---------- announcements ----------

let previous;

/** Short sentences about what changed since the last poll, for screen readers. */
function changes(prev, m) {
  if (!prev) return [];
  const messages = [];
  const before = new Map(prev.orders.map((o) => [o.id, o]));
  for (const o of m.orders) {
    const old = before.get(o.id);
    const restaurant = m.restaurants.get(o.restaurant_id);
    if (!old) messages.push(`New order ${o.number} (${o.status})${restaurant ? ` at ${restaurant.name}` : ''}.`);
    else if (old.status !== o.status) messages.push(`Order ${o.number} is now ${STATUS_LABELS[o.status] || o.status}.`);
    else if (old.delivery && o.delivery && old.delivery.status !== o.delivery.status)
      messages.push(`Order ${o.number}: carrier delivery ${o.delivery.status.replace('_', ' ')}.`);
  }
  const oldCallbacks = new Map(prev.callbacks.map((c) => [c.id, c.state]));
  for (const c of m.callbacks) {
    const state = oldCallbacks.get(c.id);
    if (state === undefined || (state !== c.state && c.state !== 'pending'))
      messages.push(`Callback ${c.type} for order ${c.order_id}: ${c.state}.`);
  }
  const known = new Set(prev.notifications.map((n) => n.id));
  for (const n of m.notifications)
    if (!known.has(n.id)) messages.push(`${n.channel === 'sms' ? 'SMS' : 'E-mail'} to ${n.to}.`);
  const known2 = new Set(prev.markers.map((mk) => mk.key));
  for (const mk of m.markers) if (!known2.has(mk.key)) messages.push(`${mk.label} appears on the map.`);
  return messages;
}

function announce(messages) {
  if (!messages.length) return;
  const shown = messages.slice(0, 3);
  if (messages.length > 3) shown.push(`And ${messages.length - 3} more changes.`);
  const region = $('announcer');
  region.append(h('p', { text: shown.join(' ') }));
  while (region.childElementCount > 5) region.firstElementChild.remove();
}

// ---------- polling ----------

let paused = false;
let timer;
let failures = 0;
let lastSignature = '';

function setConnection(state, text) {
  const el = $('connection');
  if (el.getAttribute('data-state') === state && el.textContent === text) return;
  el.setAttribute('data-state', state);
  el.textContent = text;
}

// A mock started with --control-token asks for it on /__mock: the page takes it from `#token=…` (a fragment is
// never sent to the server) or from the form, and keeps it for this tab only.
const TOKEN_KEY = 'restoapi-mock-control-token';

function controlToken() {
  const fromHash = new URLSearchParams(window.location.hash.slice(1)).get('token');
  if (fromHash) {
    window.sessionStorage.setItem(TOKEN_KEY, fromHash);
    // Out of the address bar, so that it is not shared with a copied link.
    window.history.replaceState(null, '', window.location.pathname + window.location.search);
  }
  return window.sessionStorage.getItem(TOKEN_KEY);
}

class TokenRequired extends Error {}

async function getJson(path) {
  const headers = { Accept: 'application/json' };
  const token = controlToken();
  if (token) headers.Authorization = `Bearer ${token}`;
  const response = await window.fetch(path, { cache: 'no-store', headers });
  if (response.status === 401)
    throw new TokenRequired(token ? 'the control token is wrong' : 'a control token is needed');
  if (!response.ok) throw new Error(`${path} answered ${response.status}`);
  return response.json();
}

async function poll() {
  timer = undefined;
  if (paused) return;
  try {
    const [state, clock] = await Promise.all([
      getJson('/__mock/state'),
      getJson('/__mock/clock').catch(() => undefined),
    ]);
    failures = 0;
    const m = model(state, clock);
    $('clock').textContent = clock
      ? `Mock time: ${dateTime(clock.now)} UTC${clock.frozen ? ' (frozen)' : ''}`
      : 'Mock time: —';
    const signature = JSON.stringify([
      clock ? String(clock.now).slice(0, 16) : '',
      state.orders,
      state.deliveryZones,
      state.couriers,
      state.callbacks,
      state.notifications,
      state.carriers,
      state.restaurants,
    ]);
    if (signature !== lastSignature) {
      lastSignature = signature;
      renderBoard(m);
      renderMap(m);
      renderCallbacks(m);
      renderNotifications(m);
      announce(changes(previous, m));
      previous = m;
      document.body.setAttribute('data-updated', String(Date.now()));
    }
    setConnection('live', `Live: ${m.orders.length} orders, updated every second`);
  } catch (error) {
    failures += 1;
    if (error instanceof TokenRequired) {
      $('token-form').hidden = false;
      setConnection('error', `This mock protects its control API: ${error.message}. Enter the mock's control token.`);
    } else {
      setConnection('error', `Cannot reach the mock (${error instanceof Error ? error.message : error}); retrying…`);
    }
  }
  schedule();
}

function schedule() {
  if (paused || timer !== undefined) return;
  const delay = failures ? Math.min(POLL_MS * 2 ** failures, MAX_BACKOFF_MS) : POLL_MS;
  timer = setTimeout(() => void poll(), delay);
}

function setPaused(value) {
  paused = value;
  const button = $('pause');
  button.setAttribute('aria-pressed', String(paused));
  button.textContent = paused ? 'Resume updates' : 'Pause updates';
  if (paused) {
    if (timer !== undefined) clearTimeout(timer);
    timer = undefined;
    setConnection('paused', 'Paused: updates are off');
  } else {
    void poll();
  }
}

function start() {
  $('pause').addEventListener('click', () => setPaused(!paused));
  $('token-form').addEventListener('submit', (event) => {
    event.preventDefault();
    window.sessionStorage.setItem(TOKEN_KEY, $('token-input').value.trim());
    $('token-form').hidden = true;
    failures = 0;
    if (timer !== undefined) clearTimeout(timer);
    timer = undefined;
    void poll();
  });
  void poll();
}

if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', start);
else start();
