import { createApp } from "@bench/fastify-app";

export const app = createApp();
