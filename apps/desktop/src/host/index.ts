/**
 * The engine host of the desktop app. Terms: a *host* carries out the
 * DesktopApi over one Engine (one home); a *quick call* answers at once, a
 * *job* (pack, verify, ingest) runs under a renderer-chosen *job id*, emits
 * progress and warning *events*, and can be cancelled; a *wire error* is the
 * plain `{name, code, message, hint, exitCode, path}` object every failure
 * becomes when it crosses IPC, HTTP or a process boundary. The *remote host*
 * runs the host in a Node child process (for Electron, whose ABI the
 * engine's native modules are not built for).
 */
export { DesktopHost, type HostOptions, type HostPort } from './host.js';
export { RemoteHost, type RemoteHostOptions } from './remote.js';
export { toWireError, fromWireError, INTERNAL_EXIT_CODE } from './errors.js';
export { detectDrives, envDriveFolders, shipmentsOn } from './drives.js';
export { parseMountinfo, driveMounts, type Mount } from './mountinfo.js';
export { parseGetVolume, parseWmic } from './volumes.js';
export { listFolder, sourceInfo } from './folders.js';
export { shipmentFolder, folderPath, FOLDER_LIMIT, type FolderRequest } from './shipment-folder.js';
export { ALL_METHODS, METHODS, QUICK_METHODS, JOB_METHODS, type CallShape, type WireError } from '../shared/methods.js';
