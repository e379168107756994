// Stops a test PostgreSQL server once the test process that started it is gone, even when that
// process was killed with SIGKILL and ran no exit hook. Started detached by postgres-server.ts:
//   node postgres-watchdog.mjs <parent pid> <folder> <pg_ctl path> [runuser]
// It polls the parent every 500 ms; when the parent no longer exists it stops the server
// (immediate mode), removes the folder and exits. The parent kills it on a normal stop.
import { spawnSync } from "node:child_process";
import { rmSync } from "node:fs";
import { join } from "node:path";

const [parentArg, folder, pgCtl, runAs] = process.argv.slice(2);
const parent = Number(parentArg);

function alive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return error.code !== "ESRCH";
  }
}

function stopAndRemove() {
  const args = ["-D", join(folder, "data"), "-m", "immediate", "-w", "stop"];
  const command =
    runAs === undefined ? [pgCtl, ...args] : ["runuser", "-u", runAs, "--", pgCtl, ...args];
  spawnSync(command[0], command.slice(1), { stdio: "ignore", timeout: 30_000 });
  rmSync(folder, { recursive: true, force: true });
}

const timer = setInterval(() => {
  if (alive(parent)) return;
  clearInterval(timer);
  stopAndRemove();
  process.exit(0);
}, 500);
