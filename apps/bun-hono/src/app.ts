import { bunGetPath, createApp } from "@bench/hono-app";

export const app = createApp({ getPath: bunGetPath });
