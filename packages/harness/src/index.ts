export {
  isRunning,
  LaunchError,
  portHolder,
  REPO_ROOT,
  type RunningApp,
  type StartOptions,
  type StopReport,
  startApp,
} from "./launch.ts";
export { runLoad } from "./load.ts";
export { toolCommand, toolVersion } from "./tools.ts";
