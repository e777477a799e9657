import type { Role } from '../config.js';
import { component, defineTest, opPointer, resourceRows } from './define.js';

/** A day in milliseconds (the decided token lifetime is 30 of them). */
const DAY_MS = 24 * 60 * 60 * 1000;

const SESSION_ROWS = [
  'Endpoints > Session: POST /api/session',
  'Endpoints > Session: GET /api/session',
  'Endpoints > Session: DELETE /api/session',
];

const EXPECTED_TYPE: Record<Role, string> = {
  dispatcher: 'dispatcher',
  staffMember: 'staff_member',
  foreignStaffMember: 'staff_member',
  courier: 'courier',
  otherCourier: 'courier',
};

export const sessionTests = [
  defineTest({
    id: 'session.lifecycle',
    title: 'Authentication 4: a session is created, read and deleted, and the old token is refused afterwards',
    clauses: [...SESSION_ROWS, 'Authentication 1', 'Authentication 2', 'Authentication 4'],
    profile: 'spec',
    kind: 'behaviour',
    operations: ['createSession', 'getSession', 'deleteSession', 'listOrganizations'],
    async run(t) {
      const session = await t.login('staffMember');
      const client = t.withSession(session);
      t.status(await client.get('/api/session'), 200, 'reading the new session');
      t.status(await client.get('/api/organizations'), 200, 'a call inside the session');
      t.status(await client.delete('/api/session'), '2xx', 'ending the session');
      const again = await client.get('/api/session');
      t.refused(again, 401, 'reading a deleted session');
      t.refused(await client.get('/api/organizations'), 401, 'a call with the ended token (header)');
      t.refused(
        await client.request({ method: 'GET', path: '/api/organizations', tokenIn: 'query' }),
        401,
        'a call with the ended token (query)',
      );
      const fresh = await t.login('staffMember');
      t.notEqual(fresh.token, session.token, 'a new session after DELETE reuses the ended token');
      t.status(await t.withSession(fresh).get('/api/organizations'), 200, 'a call in a new session');
    },
  }),
  defineTest({
    id: 'session.credentials-form-and-query',
    title: 'Data format rules 10: session creation accepts the credentials as form parameters or as query parameters',
    clauses: [
      'Data format rules 10',
      'Data format rules 7',
      'Endpoints > Session: POST /api/session',
      'Authentication 2',
      'Authentication 3',
    ],
    profile: 'spec',
    kind: 'behaviour',
    operations: ['createSession', 'getSession'],
    async run(t) {
      for (const where of ['form', 'multipart', 'query'] as const) {
        const session = await t.login('courier', where);
        t.check(session.token.length > 0, `credentials as ${where}: meta.token is empty`);
        t.status(
          await t.withSession(session).get('/api/session'),
          200,
          `the token of a session created with credentials as ${where}`,
        );
      }
      // Authentication 2: the user is identified by the pair, so a known login with a wrong password gets no session.
      const credentials = t.credentials('courier');
      if ('login' in credentials) {
        const wrong = await t.anon().request({
          method: 'POST',
          path: '/api/session',
          query: { login: credentials.login, password: `${credentials.password}-wrong` },
        });
        t.refused(wrong, 401, 'Authentication 2: a known login with a wrong password');
        t.check(wrong.body?.meta?.token === undefined, 'Authentication 2: a wrong password was given a token');
      }
    },
  }),
  defineTest({
    id: 'session.token-forms',
    title:
      'Authentication 3: the token is accepted as the Authorization header and as the token query parameter; calls without a session are refused',
    clauses: ['Authentication 1', 'Authentication 3'],
    profile: 'spec',
    kind: 'behaviour',
    operations: ['listOrganizations', 'getOrganization', 'listOrders'],
    async run(t) {
      const session = await t.login('dispatcher');
      const client = t.withSession(session);
      t.status(
        await client.request({ method: 'GET', path: '/api/organizations', tokenIn: 'header' }),
        200,
        'token in the Authorization header',
      );
      t.status(
        await client.request({ method: 'GET', path: '/api/organizations', tokenIn: 'query' }),
        200,
        'token as the token query parameter',
      );
      t.status(
        await client.request({ method: 'GET', path: '/api/orders', tokenIn: 'query', query: { per_page: 1 } }),
        200,
        'token as query parameter next to filters',
      );
      const anon = t.anon();
      t.refused(await anon.get('/api/organizations'), 401, 'a call without a token');
      t.refused(await anon.get(`/api/organizations/${t.fixtures.orgId}`), 401, 'a read by id without a token');
      t.refused(
        await anon.request({
          method: 'GET',
          path: '/api/orders',
          headers: { Authorization: 'Token token="not-a-real-token"' },
        }),
        401,
        'an unknown token',
      );
      t.refused(
        await anon.request({ method: 'GET', path: '/api/orders', query: { token: 'not-a-real-token' } }),
        401,
        'an unknown token in the query',
      );
    },
  }),
  defineTest({
    id: 'session.accounts-per-role',
    title: 'Authentication 5: every ApiUser has one attached account whose type is dispatcher, staff_member or courier',
    clauses: [
      'Authentication 5',
      'Resources > ApiUser: account',
      ...resourceRows('ApiUser', ['id', 'login', 'name', 'phone', 'avatar']),
      'Endpoints > Session: POST /api/session',
    ],
    profile: 'spec',
    kind: 'behaviour',
    operations: ['createSession'],
    async run(t) {
      for (const role of ['dispatcher', 'staffMember', 'courier', 'otherCourier', 'foreignStaffMember'] as const) {
        if (!t.config.accounts[role]) continue;
        const session = await t.login(role);
        t.equal(session.accountType, EXPECTED_TYPE[role], `account type of the ${role} account`);
        t.check(
          Number.isInteger(session.accountId) && session.accountId > 0,
          `account id of the ${role} account is not a positive integer`,
        );
        const credentials = t.config.accounts[role];
        if (credentials && 'login' in credentials)
          t.equal(session.body?.api_user?.login, credentials.login, `login of the ${role} ApiUser`);
        t.check(Array.isArray(session.body?.staff_members), 'staff_members is not an array');
      }
    },
  }),
  defineTest({
    id: 'session.decided-answers',
    title:
      'Session (decided): GET answers the POST body, DELETE answers 204, tokens are opaque base64url, expires_at is reported',
    clauses: [...SESSION_ROWS, 'Authentication 4'],
    profile: 'full',
    decisions: [
      opPointer('/api/session', 'get', '/responses/200'),
      opPointer('/api/session', 'delete', '/responses/204'),
      component('schemas', 'SessionResponse/properties/meta/properties/token'),
      component('schemas', 'SessionResponse/properties/meta/properties/expires_at'),
      component('schemas', 'SessionResponse/properties/staff_members'),
      component('schemas', 'StaffMember'),
    ],
    kind: 'decision',
    operations: ['createSession', 'getSession', 'deleteSession'],
    async run(t) {
      const session = await t.login('staffMember');
      t.check(
        /^[A-Za-z0-9_-]{43,}$/.test(session.token),
        `the token is not ≥ 43 base64url characters: ${session.token}`,
      );
      const expires = Date.parse(session.body?.meta?.expires_at);
      t.check(!Number.isNaN(expires), 'meta.expires_at is not a timestamp');
      // The decided lifetime: 30 days after the last use (a day of slack for clocks apart).
      t.check(
        expires > Date.now() + 29 * DAY_MS && expires < Date.now() + 31 * DAY_MS,
        `meta.expires_at ${session.body?.meta?.expires_at} is not 30 days after this login`,
      );
      const staff = t.list<{ organization_id: number; id: number }>(session.body, ['staff_members'], 'staff_members');
      t.equal(staff.length, 1, 'staff_members of a staff-member session');
      t.equal(staff[0]?.organization_id, t.fixtures.orgId, 'organization of the staff member');
      t.equal(staff[0]?.id, session.accountId, "staff_members holds the account's own record");
      t.equal(
        Object.keys(staff[0] ?? {}).sort(),
        ['id', 'organization_id', 'restaurant_ids', 'role'],
        'fields of the staff member record (exactly the four the spec lists)',
      );
      const client = t.withSession(session);
      const read = await client.get('/api/session');
      t.status(read, 200);
      t.equal(read.body?.meta?.token, session.token, 'GET /api/session returns the same token');
      t.equal(read.body?.api_user, session.body?.api_user, 'GET /api/session returns the same api_user');
      t.equal(read.body?.staff_members, session.body?.staff_members, 'GET /api/session returns the same staff_members');
      const courier = await t.login('courier');
      t.equal(courier.body?.staff_members, [], 'staff_members of a courier session');
      const ended = await client.delete('/api/session');
      t.status(ended, 204, 'DELETE /api/session');
      t.equal(ended.text, '', 'body of DELETE /api/session');
    },
  }),
  defineTest({
    id: 'session.decided-refusals',
    title: 'Authentication (decided): wrong credentials and bad tokens get 401 with a Token challenge, all alike',
    clauses: ['Authentication 1', 'Authentication 2', 'Endpoints > Session: POST /api/session'],
    profile: 'full',
    decisions: [
      component('responses', 'InvalidCredentials'),
      component('responses', 'Unauthorized'),
      component('headers', 'WWW-Authenticate'),
    ],
    kind: 'decision',
    operations: ['createSession', 'listOrders'],
    async run(t) {
      const credentials = t.credentials('staffMember');
      if (!('login' in credentials)) return t.skip('the staff member logs in with an API key');
      const wrongPassword = await t.anon().request({
        method: 'POST',
        path: '/api/session',
        body: new URLSearchParams({ login: credentials.login, password: `${credentials.password}-wrong` }).toString(),
        contentType: 'application/x-www-form-urlencoded',
      });
      const unknownLogin = await t.anon().request({
        method: 'POST',
        path: '/api/session',
        body: new URLSearchParams({ login: `nobody-${t.unique()}@example.com`, password: 'x' }).toString(),
        contentType: 'application/x-www-form-urlencoded',
      });
      t.status(wrongPassword, 401, 'wrong password');
      t.status(unknownLogin, 401, 'unknown login');
      t.equal(
        wrongPassword.body?.errors?.[0]?.code,
        unknownLogin.body?.errors?.[0]?.code,
        'a wrong password and an unknown login are told apart',
      );
      const noToken = await t.anon().get('/api/orders');
      t.status(noToken, 401, 'no token');
      t.check(
        /^Token/i.test(noToken.headers.get('www-authenticate') ?? ''),
        'a 401 without a Token challenge in WWW-Authenticate',
      );
    },
  }),
];
