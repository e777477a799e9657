import { expectTypeOf, test } from 'vitest';
import type { CallbackEvent, ClientImport, MenuImport, OrderImport } from '@restoapi/openapi';

test('the standalone schemas have their own types', () => {
  const menu: MenuImport = {
    dishes: [
      { name: 'Margherita', price: 9.5, category_name: 'Pizza', availability: [{ restaurant_id: 11, status: 'call' }] },
    ],
    config: { publish_menu: true },
  };
  expectTypeOf(menu.dishes[0]!.name).toEqualTypeOf<string>();
  const availability: NonNullable<MenuImport['dishes'][number]['availability']> = [
    // @ts-expect-error availability status is available, not_available or call
    { restaurant_id: 11, status: 'sold_out' },
  ];
  void availability;
  // @ts-expect-error gender is male or female
  const client: ClientImport = { clients: [{ external_id: 'c-1', gender: 'other' }] };
  void client;
  expectTypeOf<OrderImport['orders'][number]['status']>().toEqualTypeOf<
    'pending' | 'accepted' | 'cooking' | 'ready' | 'delivery' | 'complete' | 'cancelled'
  >();
});

test('the callback event is discriminated on type', () => {
  const handle = (event: CallbackEvent): string => (event.type === 'order_status_changed' ? event.status : 'created');
  expectTypeOf(handle).returns.toEqualTypeOf<string>();
});
