// The repository's root: apps live in <root>/apps/<name>, results under <root>/results. A leaf
// module, so every folder that needs the root reads it from here and none imports another for it.

import { resolve } from "node:path";

export const REPO_ROOT = resolve(import.meta.dir, "../../../..");
