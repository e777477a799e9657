import { expect, test } from 'vitest';
import { dishView } from '../menu/menu-views.js';
import { categoryRecord, dishRecord, newDish } from './dish.js';

test('a dish record takes the decided defaults for every field not given', () => {
  expect(dishRecord({ name: 'Margherita', draft_category_id: 1001, organization_id: 1 })).toEqual({
    is_hidden: false,
    name: 'Margherita',
    description: '',
    menu_order: 0,
    price: '0.00',
    photo: null,
    weight: null,
    ingredients: '',
    can_zoom: false,
    is_next_day: false,
    external_id: null,
    options: null,
    draft_category_id: 1001,
    organization_id: 1,
  });
});

test('given dish facts win over the defaults; an undefined fact keeps the default', () => {
  const dish = dishRecord({
    name: 'Cola 0.33 l',
    draft_category_id: 1002,
    organization_id: 1,
    price: '2.50',
    weight: '330',
    is_hidden: undefined,
    remote_photo_url: 'https://example.com/cola.jpg',
  });
  expect(dish).toMatchObject({ price: '2.50', weight: '330', is_hidden: false });
  expect(dish.remote_photo_url).toBe('https://example.com/cola.jpg');
  expect('availability' in dish).toBe(false);
});

test('a dish record lists its fields in the order of the API view, extras last', () => {
  const dish = dishRecord({ availability: null, name: 'Miso Soup', draft_category_id: 2002, organization_id: 2 });
  expect(Object.keys(dish).slice(0, 2)).toEqual(['is_hidden', 'name']);
  expect(Object.keys(dish).at(-1)).toBe('availability');
});

test('a category record has no photo unless one is given', () => {
  expect(categoryRecord({ name: 'Pizza', menu_order: 1, organization_id: 1 })).toEqual({
    name: 'Pizza',
    menu_order: 1,
    photo: null,
    organization_id: 1,
  });
  const photo = { original: 'o', small: 's', small_square: 'ss', medium_square: 'ms', medium: 'm', large: 'l' };
  expect(categoryRecord({ name: 'Soups', menu_order: 2, organization_id: 2, photo, external_id: 'ss-soups' })).toEqual({
    name: 'Soups',
    menu_order: 2,
    photo,
    organization_id: 2,
    external_id: 'ss-soups',
  });
});

test('a new dish holds its three facts and the defaults, fields in the order a created dish is stored', () => {
  const dish = newDish('Margherita', 1001, 1);
  expect(dish).toMatchObject({ name: 'Margherita', draft_category_id: 1001, organization_id: 1, price: '0.00' });
  // A create stores this very object, then its id: the answer's fields without the id, in the answer's order.
  expect(Object.keys(dish)).toEqual(Object.keys(dishView({ ...dish, id: 1 })).filter((key) => key !== 'id'));
});
