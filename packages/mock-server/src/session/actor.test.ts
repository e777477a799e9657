import { expect, test } from 'vitest';
import { createMock } from '../index.js';
import { actorFor, readToken } from './actor.js';

function signedIn(login: string) {
  const mock = createMock();
  const { state } = mock.runtime;
  const apiUser = state.apiUsers.find((user) => user.login === login)!;
  const session = { id: 1, token: 't', api_user_id: apiUser.id } as never;
  return { mock, state, scope: () => actorFor(mock.runtime, apiUser, session) };
}

test("an administrator's restaurants follow the restaurants table, though the scope is worked out once", () => {
  const { mock, state, scope } = signedIn('admin@pizza.demo');
  const first = scope();
  expect([...(first.restaurantIds as Set<number>)].sort()).toEqual([11, 12]);
  // Unchanged tables: the same scope again, not a new scan.
  expect(scope().restaurantIds).toBe(first.restaurantIds);

  const moved = { ...state.restaurants.get(21)!, organization_id: 1 };
  state.restaurants.put(moved);
  expect([...(scope().restaurantIds as Set<number>)].sort()).toEqual([11, 12, 21]);

  state.restaurants.put({ ...moved, organization_id: 2 });
  expect([...(scope().restaurantIds as Set<number>)].sort()).toEqual([11, 12]);
  mock.close();
});

test('a staff member record written anew (a manager of fewer restaurants) gets its own scope', () => {
  const { mock, state, scope } = signedIn('admin@pizza.demo');
  const admin = state.staffMembers.get(1)!;
  expect([...(scope().restaurantIds as Set<number>)].sort()).toEqual([11, 12]);
  state.staffMembers.put({ ...admin, role: 'manager', restaurant_ids: [12] });
  expect([...(scope().restaurantIds as Set<number>)]).toEqual([12]);
  expect([...(scope().organizationIds as Set<number>)]).toEqual([1]);
  mock.close();
});

test('a state loaded anew (another restaurants table, the same staff member record) is read again', () => {
  const { mock, state, scope } = signedIn('admin@pizza.demo');
  const before = scope().restaurantIds;
  const json = mock.exportState();
  // The loaded tables hold the very row objects exported: only the restaurants table itself is new.
  expect(json.staffMembers!.rows[0]).toBe(state.staffMembers.get(1));
  json.restaurants!.rows = json.restaurants!.rows.filter((restaurant) => restaurant.id !== 12);
  mock.loadState(json);
  const after = scope().restaurantIds;
  expect(after).not.toBe(before);
  expect([...(after as Set<number>)]).toEqual([11]);
  mock.close();
});

test('tokens are read from each header in turn, whichever header came before', () => {
  const url = new URL('http://localhost/api/orders?token=from-query');
  const read = (authorization: string | null) =>
    readToken({ headers: { get: (name) => (name === 'authorization' ? authorization : null) } }, url);
  const headers = [
    'Token token="a1"',
    'token TOKEN=b2',
    'Bearer c3',
    'Token token="a1"',
    '  Token token=d4  ',
    null,
    'Token token="a1',
  ];
  const tokens = ['a1', 'b2', undefined, 'a1', 'd4', 'from-query', 'a1'];
  for (let round = 0; round < 2; round++) expect(headers.map(read)).toEqual(tokens);
});
