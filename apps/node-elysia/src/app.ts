import { createApp } from "@bench/elysia-app";
import { node } from "@elysiajs/node";

export const app = createApp({ adapter: node() });
