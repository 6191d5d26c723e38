import { getApp } from "@bench/contract";
import { createApp } from "./app.ts";

const { name, port } = getApp("node-bare");
createApp().listen(port, "127.0.0.1", () => {
  console.log(`${name} listening on http://127.0.0.1:${port}`);
});
