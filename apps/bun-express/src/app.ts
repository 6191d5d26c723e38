import { createApp } from "@bench/express-app";

export const app = createApp();
