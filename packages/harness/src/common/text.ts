// Lists in a sentence, as the help and the refusals write them.

/** "a, b or c": a short list in a sentence. */
export const orList = (items: readonly string[]): string =>
  items.length < 2 ? items.join("") : `${items.slice(0, -1).join(", ")} or ${items.at(-1)}`;
