import { createApp } from "@bench/elysia-app";

export const app = createApp();
