// Preloaded (NODE_OPTIONS=--import) into a clinic child by test/db/file-modes.test.ts: the
// program is killed (SIGKILL) at the moment it would change the mode of a folder under
// documents/, as a power cut between a folder's mkdir and its chmod would stop it (issue 42,
// finding 15). Everything else runs as it would.
import fs from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';

/** Whether the descriptor `fd` is documents/ or a patient's folder in it (Linux: /proc/self/fd). */
function isDocumentFolder(fd) {
  try {
    return /\/documents(\/[^/]+)?$/.test(fs.readlinkSync(`/proc/self/fd/${fd}`)) && fs.fstatSync(fd).isDirectory();
  } catch {
    return false;
  }
}

const die = () => process.kill(process.pid, 'SIGKILL');
const { fchmodSync, fchmod } = fs;
fs.fchmodSync = (fd, mode) => (isDocumentFolder(fd) ? die() : fchmodSync(fd, mode));
fs.fchmod = (fd, mode, callback) => (isDocumentFolder(fd) ? die() : fchmod(fd, mode, callback));
syncBuiltinESMExports();
const handle = await fs.promises.open('/', 'r');
const FileHandle = Object.getPrototypeOf(handle);
await handle.close();
const { chmod } = FileHandle;
FileHandle.chmod = function chmodOrDie(mode) {
  return isDocumentFolder(this.fd) ? die() : chmod.call(this, mode);
};
