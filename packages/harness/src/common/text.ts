// Lists in a sentence, as the help and the refusals write them.

/** "a, b or c" (or "and"): a short list in a sentence. */
export const listText = (items: readonly string[], word: "or" | "and"): string =>
  items.length < 2 ? items.join("") : `${items.slice(0, -1).join(", ")} ${word} ${items.at(-1)}`;

/** "a, b or c". */
export const orList = (items: readonly string[]): string => listText(items, "or");
