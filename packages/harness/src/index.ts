export { localHost } from "./host.ts";
export {
  isRunning,
  LaunchError,
  REPO_ROOT,
  type RunningApp,
  type StartOptions,
  type StopReport,
  startApp,
} from "./launch.ts";
export { runLoad } from "./load.ts";
export { portHolder } from "./readiness.ts";
export { toolCommand, toolVersion } from "./tools.ts";
