export { median } from "./analysis/stats.ts";
export {
  isRunning,
  LaunchError,
  type RunningApp,
  type StartOptions,
  type StopReport,
  startApp,
} from "./apps/launch.ts";
export { portHolder } from "./apps/readiness.ts";
export { REPO_ROOT } from "./common/root.ts";
export { localHost } from "./hosts/host.ts";
export { runLoad } from "./load/load.ts";
export { toolCommand, toolVersion } from "./load/tools.ts";
