/** The parts an order's `address_text` is built from. */
export interface AddressParts {
  address?: string | null;
  apartment?: string | null;
  staircase?: string | null;
  floor?: string | null;
  doorphone?: string | null;
  city?: string | null;
}

/** The order's full address from its fields, as in `Wiener Straße 18, apartment 4, floor 2, Berlin`; empty parts are left out. */
export function buildAddressText(parts: AddressParts): string {
  const labelled = (label: string, value: string | null | undefined) => (value ? `${label} ${value}` : '');
  return [
    parts.address ?? '',
    labelled('apartment', parts.apartment),
    labelled('staircase', parts.staircase),
    labelled('floor', parts.floor),
    labelled('doorphone', parts.doorphone),
    parts.city ?? '',
  ]
    .map((part) => part.trim())
    .filter(Boolean)
    .join(', ');
}

/** The initials an organization's order numbers start with: `Pizza Piccolo` → `PP`; `ORD` for a name without letters. */
export function orderNumberPrefix(organizationName: string): string {
  const initials = organizationName
    .normalize('NFD')
    .replace(/\p{M}/gu, '')
    .split(/[^\p{L}\p{N}]+/u)
    .filter(Boolean)
    .map((word) => word[0]!.toUpperCase())
    .join('')
    .replace(/[^A-Z0-9]/g, '')
    .slice(0, 4);
  return initials || 'ORD';
}

/** The human-readable number of an order: organization initials and the order id, `PP-5001`. */
export function orderNumber(organizationName: string, id: number): string {
  return `${orderNumberPrefix(organizationName)}-${id}`;
}
