/**
 * A small UI component: the live order board of a restaurant, rendered with plain DOM APIs.
 * It reads through @restoapi/sdk, so the same component runs against the real service, the
 * mock server, or MSW in tests.
 */
import { RestoApiError, type RestoClient } from '@restoapi/sdk';

const STATUS_LABEL: Record<string, string> = {
  pending: 'New',
  accepted: 'Accepted',
  cooking: 'Cooking',
  ready: 'Ready',
  delivery: 'Out for delivery',
  complete: 'Delivered',
  cancelled: 'Cancelled',
};

/** Renders the orders of `restaurantIds` into `root`; on failure shows the error and a Retry button. */
export async function mountOrderBoard(root: HTMLElement, api: RestoClient, restaurantIds: number[]): Promise<void> {
  root.replaceChildren(paragraph('Loading orders…', 'status'));
  try {
    const { orders, meta } = await api.orders.list({
      restaurant_id: restaurantIds,
      sort_by: '-created_at',
      per_page: 20,
    });
    const heading = document.createElement('h2');
    heading.textContent = `Orders (${meta.count})`;
    const list = document.createElement('ul');
    for (const order of orders) {
      const item = document.createElement('li');
      item.dataset.status = order.status;
      item.textContent = `${order.number} · ${STATUS_LABEL[order.status] ?? order.status} · ${order.total}`;
      list.append(item);
    }
    root.replaceChildren(heading, list);
  } catch (error) {
    // The SDK already retried what was safe to retry; what is left is worth telling the user.
    const message =
      error instanceof RestoApiError ? `${error.status}: ${error.errors[0]?.title ?? error.message}` : String(error);
    const retry = document.createElement('button');
    retry.textContent = 'Retry';
    retry.addEventListener('click', () => void mountOrderBoard(root, api, restaurantIds));
    root.replaceChildren(paragraph(`Could not load the orders (${message}).`, 'alert'), retry);
  }
}

function paragraph(text: string, role: string): HTMLParagraphElement {
  const p = document.createElement('p');
  p.setAttribute('role', role);
  p.textContent = text;
  return p;
}
