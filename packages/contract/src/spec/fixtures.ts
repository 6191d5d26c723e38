// Fixed request bodies, so that every load generator sends the same bytes.

/** About 1 KB of typical API JSON: nested objects, arrays, numbers, booleans, null, unicode. */
export const ECHO_FIXTURE = {
  id: 4217,
  type: "order",
  status: "confirmed",
  createdAt: "2026-01-15T09:30:00.000Z",
  customer: {
    id: 981,
    name: "Zoë Åkesson",
    email: "zoe.akesson@example.com",
    vip: true,
    tags: ["returning", "newsletter", "eu"],
  },
  shipping: {
    method: "express",
    address: { street: "Storgatan 12", city: "Malmö", postcode: "211 34", country: "SE" },
    instructions: null,
  },
  items: [
    { sku: "KB-104", name: "Mechanical keyboard", quantity: 1, unitPrice: 129.9, discount: 0 },
    { sku: "MS-220", name: "Wireless mouse", quantity: 2, unitPrice: 39.5, discount: 0.1 },
    { sku: "CB-003", name: "USB-C cable (2 m)", quantity: 3, unitPrice: 9.99, discount: 0 },
    { sku: "MP-510", name: "Desk mat — large", quantity: 1, unitPrice: 24, discount: 0.05 },
  ],
  totals: { subtotal: 262.87, shipping: 12, tax: 68.72, grandTotal: 343.59, currency: "EUR" },
  payment: {
    method: "card",
    brand: "visa",
    last4: "4242",
    authorized: true,
    reference: "PAY-7F3A-0042",
  },
  notes: "Leave at the reception if nobody answers. Thanks! 🙂",
} as const;

export const ECHO_BODY = JSON.stringify(ECHO_FIXTURE);
