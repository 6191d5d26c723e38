import { createApp } from "@bench/hono-app";

export const app = createApp();
