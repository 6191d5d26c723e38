export { median } from "./analysis/stats.ts";
export {
  isRunning,
  LaunchError,
  REPO_ROOT,
  type RunningApp,
  type StartOptions,
  type StopReport,
  startApp,
} from "./apps/launch.ts";
export { portHolder } from "./apps/readiness.ts";
export { localHost } from "./hosts/host.ts";
export { runLoad } from "./load/load.ts";
export { toolCommand, toolVersion } from "./load/tools.ts";
