// Deterministic data for the params, validate and large scenarios: every app derives the same
// bytes from the same request, so no app is faster because it answered less.

export const MAX_USER_ID = 2_147_483_647;

/** The fields GET /api/users/:id can return besides `id`, in the order they are returned. */
export const USER_FIELDS = ["name", "email", "city", "age"] as const;
export type UserField = (typeof USER_FIELDS)[number];

export interface User {
  readonly id: number;
  readonly name: string;
  readonly email: string;
  readonly city: string;
  readonly age: number;
}

const FIRST = ["Ada", "Grace", "Linus", "Margaret", "Ken", "Barbara", "Dennis", "Frances"];
const LAST = [
  "Lovelace",
  "Hopper",
  "Torvalds",
  "Hamilton",
  "Thompson",
  "Liskov",
  "Ritchie",
  "Allen",
];
const CITIES = ["London", "New York", "Helsinki", "Boston", "Berkeley", "Zürich", "Kyoto", "Lagos"];

export function userById(id: number): User {
  const first = FIRST[id % FIRST.length] as string;
  const last = LAST[(id * 7) % LAST.length] as string;
  return {
    id,
    name: `${first} ${last}`,
    email: `${first}.${last}.${id}@example.com`.toLowerCase(),
    city: CITIES[(id * 13) % CITIES.length] as string,
    age: 18 + ((id * 31) % 60),
  };
}

/** A decimal id from 1 to MAX_USER_ID, or undefined ("007" is 7; "7.0", "1e3", "-1" are not ids). */
export function parseUserId(raw: string | undefined): number | undefined {
  if (raw === undefined || !/^\d{1,10}$/.test(raw)) return undefined;
  const id = Number(raw);
  return id >= 1 && id <= MAX_USER_ID ? id : undefined;
}

/**
 * The `fields` query parameter: absent means every field; otherwise a comma-separated list of
 * USER_FIELDS (repeats allowed). Returns the fields, or the first unknown one.
 */
export function parseUserFields(
  raw: string | null | undefined,
): { readonly fields: readonly UserField[] } | { readonly unknown: string } {
  if (raw === null || raw === undefined) return { fields: USER_FIELDS };
  const wanted = raw.split(",");
  for (const field of wanted) {
    if (!(USER_FIELDS as readonly string[]).includes(field)) return { unknown: field };
  }
  return { fields: USER_FIELDS.filter((f) => wanted.includes(f)) };
}

/** `id` first, then the selected fields in USER_FIELDS order: identical bytes in every app. */
export function selectUserFields(user: User, fields: readonly UserField[]): Partial<User> {
  const out: Record<string, unknown> = { id: user.id };
  for (const field of USER_FIELDS) if (fields.includes(field)) out[field] = user[field];
  return out as Partial<User>;
}

/** The body of POST /api/users/:id, ~100 bytes. */
export interface UserUpdate {
  readonly id: number;
  readonly name: string;
  readonly surname: string;
  /** ISO 8601 date-time, e.g. 2026-01-15T09:30:00.000Z */
  readonly lastUpdate: string;
}

/** Rules every app enforces, each with its own validator; checked in this order. */
export const USER_UPDATE_RULES = {
  id: "an integer equal to the :id in the path",
  name: "a string of 1 to 100 characters",
  surname: "a string of 1 to 100 characters",
  lastUpdate: "an ISO 8601 date-time string",
} as const;

export const NAME_MAX = 100;

export const USER_UPDATE_FIXTURE: UserUpdate = {
  id: 42,
  name: "Augusta Ada",
  surname: "King-Lovelace",
  lastUpdate: "2026-01-15T09:30:00.000Z",
};

/** What POST /api/users/:id answers: the user as sent, `lastUpdate` set to now. */
export function updatedUser(update: UserUpdate, now = new Date()): UserUpdate {
  return {
    id: update.id,
    name: update.name,
    surname: update.surname,
    lastUpdate: now.toISOString(),
  };
}

export const ITEMS_DEFAULT = 100;
export const ITEMS_MAX = 1000;

export interface Item {
  readonly id: number;
  readonly sku: string;
  readonly name: string;
  readonly description: string;
  readonly price: number;
  readonly currency: string;
  readonly inStock: boolean;
  readonly rating: number;
  readonly tags: readonly string[];
}

const ADJECTIVES = ["Ergonomic", "Rustic", "Sleek", "Practical", "Handmade", "Refined", "Compact"];
const MATERIALS = ["Steel", "Oak", "Cotton", "Granite", "Bamboo", "Wool", "Copper", "Glass"];
const PRODUCTS = ["Chair", "Desk", "Lamp", "Kettle", "Backpack", "Keyboard", "Mug", "Shelf"];
const TAGS = ["home", "office", "outdoor", "kitchen", "gift", "eco", "sale", "new"];

/** `count` items, the same for every app and request (a JSON array of ~200 bytes an item). */
export function buildItems(count: number): Item[] {
  const items: Item[] = [];
  for (let id = 1; id <= count; id++) {
    const name = `${ADJECTIVES[id % ADJECTIVES.length]} ${MATERIALS[(id * 3) % MATERIALS.length]} ${PRODUCTS[(id * 5) % PRODUCTS.length]}`;
    items.push({
      id,
      sku: `SKU-${String(id).padStart(6, "0")}`,
      name,
      description: `${name}, model ${id}: built to last, easy to clean.`,
      price: Math.round(((id * 7919) % 100_000) + 99) / 100,
      currency: "EUR",
      inStock: id % 3 !== 0,
      rating: Math.round((((id * 17) % 41) / 10 + 1) * 10) / 10,
      tags: [TAGS[id % TAGS.length] as string, TAGS[(id * 3 + 1) % TAGS.length] as string],
    });
  }
  return items;
}

/** The `count` query parameter: absent means ITEMS_DEFAULT; else a decimal from 1 to ITEMS_MAX. */
export function parseItemCount(raw: string | null | undefined): number | undefined {
  if (raw === null || raw === undefined) return ITEMS_DEFAULT;
  if (!/^\d{1,4}$/.test(raw)) return undefined;
  const count = Number(raw);
  return count >= 1 && count <= ITEMS_MAX ? count : undefined;
}
